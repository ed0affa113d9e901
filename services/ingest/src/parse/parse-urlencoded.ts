import { IngestErrors } from '../ingest-errors.ts';
import type { IngestLimits } from '../limits.ts';
import { checkedField, type ParsedBody } from './parsed-body.ts';

/** `a=1&a=2&b.c=3` → three fields, in order; brackets and dots are part of the name, never structure. */
export function parseUrlencoded(body: Buffer, limits: IngestLimits): ParsedBody {
  const text = body.toString('utf8');
  // Count separators before parsing so 100,000 params cost a scan, not 100,000 allocations.
  let pairs = text.length > 0 ? 1 : 0;
  for (let i = text.indexOf('&'); i !== -1; i = text.indexOf('&', i + 1)) {
    if (++pairs > limits.maxFields) throw IngestErrors.tooManyFields(limits.maxFields);
  }
  const fields = [];
  for (const [name, value] of new URLSearchParams(text)) {
    if (name === '' && value === '') continue;
    fields.push(checkedField(name, value, limits));
  }
  return { fields, files: [] };
}
