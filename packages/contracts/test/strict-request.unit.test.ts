import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { API_ROUTES } from '../src/routes/index.ts';
import { strictRequest } from '../src/routes/strict-request.ts';

const unknownKeys = (result: { success: boolean; error?: z.ZodError }) =>
  (result.error?.issues ?? []).flatMap((i) =>
    i.code === 'unrecognized_keys' ? i.keys.map((k) => [...i.path, k].join('.')) : [],
  );

describe('strictRequest', () => {
  it('refuses an unknown key at any depth, through optional, nullable, default, array, record, union and pipe', () => {
    const schema = strictRequest(
      z.object({
        a: z.object({ b: z.string() }).optional(),
        c: z.array(z.object({ d: z.number() })),
        e: z.record(z.string(), z.object({ f: z.boolean() })).nullable(),
        g: z.union([z.object({ kind: z.literal('x') }), z.object({ kind: z.literal('y'), h: z.string() })]),
        i: z.object({ j: z.string() }).default({ j: 'k' }),
        l: z.object({ m: z.string() }).pipe(z.object({ m: z.string().min(1) })),
      }),
    );
    const valid = { c: [{ d: 1 }], e: { k: { f: true } }, g: { kind: 'y', h: 'z' }, l: { m: 'n' } };
    expect(schema.parse(valid)).toEqual({ ...valid, i: { j: 'k' } });
    const result = schema.safeParse({
      ...valid,
      top: 1,
      a: { b: 'x', deep: 2 },
      c: [{ d: 1, inArray: 3 }],
      e: { k: { f: true, inRecord: 4 } },
      i: { j: 'k', inDefault: 5 },
      l: { m: 'n', inPipe: 6 },
    });
    expect(unknownKeys(result).sort()).toEqual([
      'a.deep',
      'c.0.inArray',
      'e.k.inRecord',
      'i.inDefault',
      'l.inPipe',
      'top',
    ]);
    expect(unknownKeys(schema.safeParse({ ...valid, g: { kind: 'x', h: 'only y has it' } }))).not.toEqual([]);
  });

  it('keeps refinements, transforms and defaults, and leaves the schema it was given open', () => {
    const open = z
      .object({ n: z.string().trim().min(1), m: z.string().transform((v) => v.length) })
      .refine((v) => v.n !== 'bad', { message: 'not bad' });
    const strict = strictRequest(open);
    expect(strict.parse({ n: ' x ', m: 'abc' })).toEqual({ n: 'x', m: 3 });
    expect(strict.safeParse({ n: 'bad', m: '' }).error?.issues[0]?.message).toBe('not bad');
    expect(strict.safeParse({ n: ' ', m: '' }).success).toBe(false);
    expect(open.parse({ n: 'x', m: '', extra: 1 })).toEqual({ n: 'x', m: 0 });
    expect(strictRequest(open)).toBe(strict);
  });

  it("is what the route table's request bodies and queries are: PATCH /forms refuses settings at the wrong level", () => {
    const body = API_ROUTES.updateForm.request.body;
    expect(body.safeParse({ name: 'Contact' }).success).toBe(true);
    expect(unknownKeys(body.safeParse({ nonsense: 1 }))).toEqual(['nonsense']);
    expect(unknownKeys(body.safeParse({ spam: { honeypot: true } }))).toEqual(['spam']);
    expect(unknownKeys(body.safeParse({ notifications: { emails: [] } }))).toEqual(['notifications']);
    expect(unknownKeys(body.safeParse({ settings: { redirectUrl: null, typo: true } }))).toEqual(['settings.typo']);
    const query = API_ROUTES.listForms.request?.query;
    expect(query && unknownKeys(query.safeParse({ slug: 'contact', slgu: 'contact' }))).toEqual(['slgu']);
  });
});
