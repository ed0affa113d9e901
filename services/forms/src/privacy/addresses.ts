import type { SubmissionField } from '@formgate/contracts';
import { normalizeAddress } from '@formgate/kit';
import type { SubmissionMeta } from '../store/records.ts';

/**
 * Where a text is cut into the words an address may be (erasure by submitter, issue 31): at every character an
 * address cannot hold. The grammar is the one the API accepts an address in (zod's `email()`: letters, digits and
 * `_ ' + - .` before the `@`), so what can be asked for is what is indexed: `mailto:bob@x.com`, `<bob@x.com>` and
 * `…/?email=bob@x.com` all hold `bob@x.com`.
 */
const SEPARATORS = /[^A-Za-z0-9_'+.@-]+/;

/**
 * One word that is an address: anchored, so it is matched in time linear in the word (never the unanchored scan
 * of a hostile value, which backtracks quadratically).
 */
const ADDRESS = /^(?!\.)(?!.*\.\.)[A-Za-z0-9_'+.-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

/** The longest address (RFC 5321's path limit); a longer word is not one. */
const MAX_ADDRESS = 320;
/** The longest value scanned: field values are capped by ingest far below this. */
const MAX_SCANNED = 100_000;

/**
 * Every distinct address a submission holds, normalized (`normalizeAddress`): in any field value, and in the
 * reserved fields the submitter gave (`_replyto`, `_cc`, kept by ingest in `meta`).
 */
export function addressesOf(fields: readonly SubmissionField[], meta?: SubmissionMeta): string[] {
  const found = new Set<string>();
  const scan = (text: string) => {
    if (!text.includes('@')) return;
    for (const raw of text.slice(0, MAX_SCANNED).split(SEPARATORS)) {
      if (raw.length < 3 || raw.length > MAX_ADDRESS + 1 || !raw.includes('@')) continue;
      // Quotes and a sentence's full stop around it are not part of it: `'bob@x.com'.` holds `bob@x.com`.
      const word = raw.replace(/^['.]+|['.]+$/g, '');
      if (ADDRESS.test(word)) found.add(normalizeAddress(word));
    }
  };
  for (const f of fields) scan(f.value);
  if (meta?.replyTo) scan(meta.replyTo);
  for (const cc of meta?.cc ?? []) scan(cc);
  return [...found];
}
