import type { OpenApiDocument } from '@formgate/contracts/openapi';
import { toOpenApiPath } from '@formgate/contracts/openapi';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ApiSample } from './api-recorder.ts';

type Response = { content?: Record<string, { schema?: object }> };
type Operation = { responses: Record<string, Response> };

const mediaType = (contentType: string | null) => contentType?.split(';')[0]?.trim().toLowerCase() ?? null;

/**
 * Checks samples of answers against an OpenAPI document: the status must be documented for the operation, the
 * content type listed for that status, and a JSON body valid against its schema (JSON Schema 2020-12). Returns one
 * line per failure; none when every sample conforms.
 */
export function checkSamples(doc: OpenApiDocument, samples: readonly ApiSample[]): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const compiled = new Map<object, ValidateFunction>();
  const failures: string[] = [];
  for (const s of samples) {
    const at = `${s.method} ${s.route} → ${s.status}`;
    const item = (doc.paths as Record<string, Record<string, Operation>>)[toOpenApiPath(s.route)];
    if (!item) {
      failures.push(`${at}: the path is not described`);
      continue;
    }
    // A method the path lacks: its 405 is documented on the path's operations.
    const op = item[s.method.toLowerCase()] ?? (s.status === 405 ? Object.values(item)[0] : undefined);
    const response = op?.responses[String(s.status)];
    if (!op || !response) {
      failures.push(`${at}: ${op ? 'status' : 'operation'} not documented`);
      continue;
    }
    const type = mediaType(s.contentType);
    if (!response.content) {
      // A redirect's body is a courtesy text nobody reads.
      if (s.status >= 300 && s.status < 400) continue;
      if (s.body !== null && s.body !== '') failures.push(`${at}: a body where none is documented`);
      continue;
    }
    const media = type ? (response.content[type] ?? response.content['*/*']) : undefined;
    if (!media) {
      failures.push(`${at}: content type ${s.contentType} not documented (${Object.keys(response.content)})`);
      continue;
    }
    if (type !== 'application/json' || s.body === null || !media.schema) continue;
    let validate = compiled.get(media.schema);
    if (!validate) {
      // Named schemas live in `components.schemas`: carried along as `$defs` of the schema compiled.
      const linked = JSON.parse(
        JSON.stringify({ ...media.schema, $defs: doc.components.schemas }).replaceAll(
          '"#/components/schemas/',
          '"#/$defs/',
        ),
      ) as object;
      validate = ajv.compile(linked);
      compiled.set(media.schema, validate);
    }
    if (!validate(s.body))
      failures.push(`${at}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(s.body).slice(0, 300)}`);
  }
  return failures;
}
