import { IngestErrors } from '../ingest-errors.ts';
import type { IngestLimits } from '../limits.ts';
import { checkedField, type ParsedBody } from './parsed-body.ts';

/** Nesting depth of a JSON text, by a scan that ignores brackets inside strings; stops past `limit`. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

function toValue(v: unknown, name: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v))
      throw IngestErrors.malformed(`The number in field "${name.slice(0, 100)}" is out of range`);
    return String(v);
  }
  if (typeof v === 'boolean') return String(v);
  if (v === null) return '';
  return JSON.stringify(v);
}

/**
 * A JSON object → one field per top-level key, in order. Nested objects and arrays are kept as their compact
 * JSON text, so nothing is lost and no key is ever interpreted.
 */
export function parseJson(body: Buffer, limits: IngestLimits): ParsedBody {
  const text = body.toString('utf8');
  if (jsonDepthExceeds(text, limits.maxJsonDepth)) throw IngestErrors.tooDeep(limits.maxJsonDepth);
  let data: unknown;
  let outOfRange = false;
  try {
    // Nested out-of-range numbers (1e400 → Infinity) would otherwise be stored as `null` by JSON.stringify.
    data = JSON.parse(text, (_key, v: unknown) => {
      if (typeof v === 'number' && !Number.isFinite(v)) outOfRange = true;
      return v;
    });
  } catch {
    throw IngestErrors.malformed('The body is not valid JSON');
  }
  if (outOfRange) throw IngestErrors.malformed('A number in the body is out of range');
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw IngestErrors.malformed('The JSON body must be an object of fields');
  }
  const entries = Object.entries(data);
  if (entries.length > limits.maxFields) throw IngestErrors.tooManyFields(limits.maxFields);
  return { fields: entries.map(([name, v]) => checkedField(name, toValue(v, name), limits)), files: [] };
}
