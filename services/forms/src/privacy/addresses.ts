import type { SubmissionField } from '@formgate/contracts';
import { normalizeAddress } from '@formgate/kit';
import type { SubmissionMeta } from '../store/records.ts';

/**
 * An email address inside any text: what an erasure by submitter looks for (issue 31). Wide on purpose (a field
 * value "write to Bob.Smith+forms@example.co.uk please" holds one); a false match only indexes a key no one asks for.
 */
const ADDRESS =
  /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+/g;

/** The longest value scanned for addresses: field values are capped by ingest far below this. */
const MAX_SCANNED = 100_000;

/**
 * Every distinct address a submission holds, normalized (`normalizeAddress`): in any field value, and in the
 * reserved fields the submitter gave (`_replyto`, `_cc`, kept by ingest in `meta`).
 */
export function addressesOf(fields: readonly SubmissionField[], meta?: SubmissionMeta): string[] {
  const found = new Set<string>();
  const scan = (text: string) => {
    if (!text.includes('@')) return;
    for (const m of text.slice(0, MAX_SCANNED).matchAll(ADDRESS)) found.add(normalizeAddress(m[0]));
  };
  for (const f of fields) scan(f.value);
  if (meta?.replyTo) scan(meta.replyTo);
  for (const cc of meta?.cc ?? []) scan(cc);
  return [...found];
}
