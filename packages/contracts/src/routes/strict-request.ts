import { z } from 'zod';

type Def = Record<string, unknown> & { type: string };
const defOf = (schema: z.ZodType) => schema._zod.def as unknown as Def;
const done = new WeakMap<z.ZodType, z.ZodType>();

/** The wrappers and containers whose inner schemas a request may carry objects in, and where they sit in the def. */
const INNER: Record<string, readonly string[]> = {
  optional: ['innerType'],
  nullable: ['innerType'],
  default: ['innerType'],
  prefault: ['innerType'],
  nonoptional: ['innerType'],
  readonly: ['innerType'],
  catch: ['innerType'],
  array: ['element'],
  record: ['valueType'],
  pipe: ['in', 'out'],
  intersection: ['left', 'right'],
};

/**
 * `schema` with every object in it strict: a key it does not declare is refused (`unrecognized_keys`, 400
 * `VALIDATION_FAILED` naming it) instead of silently dropped, as Stripe answers "Received unknown parameter". Applied
 * by `defineRoute` to every request body and query, so the services parse with it and the OpenAPI description says
 * `additionalProperties: false`. Refinements, defaults and transforms are kept (each schema is cloned with its own
 * definition, only its inner schemas replaced). Responses stay open: a client must accept new fields.
 */
export function strictRequest<T extends z.ZodType>(schema: T): T {
  const known = done.get(schema);
  if (known) return known as T;
  const def = defOf(schema);
  let strict: z.ZodType = schema;
  if (def.type === 'object') {
    const shape = Object.fromEntries(
      Object.entries((schema as unknown as z.ZodObject).shape).map(([key, value]) => [
        key,
        strictRequest(value as z.ZodType),
      ]),
    );
    strict = schema.clone({ ...def, shape, catchall: z.never() } as never);
  } else if (def.type === 'union') {
    strict = schema.clone({ ...def, options: (def.options as z.ZodType[]).map(strictRequest) } as never);
  } else {
    const keys = INNER[def.type];
    if (keys) {
      const replaced = Object.fromEntries(keys.map((key) => [key, strictRequest(def[key] as z.ZodType)]));
      strict = schema.clone({ ...def, ...replaced } as never);
    }
  }
  done.set(schema, strict);
  return strict as T;
}
