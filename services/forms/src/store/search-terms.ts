import type { SubmissionField } from '@formgate/contracts';

/**
 * Words, as search sees them in both modes: runs of letters and digits, lowercased, diacritics removed ("Élodie" →
 * "elodie"); everything else separates words. This is what SQLite's FTS5 tokenizer `unicode61 remove_diacritics 2`
 * does, so a query means the same in embedded and distributed mode. Only field values are searched, never names.
 */
export function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** Longest word stored in the Mongo `terms` array; a longer one is not searchable there (or asked for: 400). */
export const MAX_TERM_LENGTH = 64;
/** Distinct words of one submission kept in its Mongo `terms` (the first ones, in field order). */
export const MAX_TERMS_PER_SUBMISSION = 2_000;

/** The distinct searchable words of a submission's field values (the Mongo `terms` field). */
export function searchTerms(fields: readonly SubmissionField[]): string[] {
  const seen = new Set<string>();
  for (const f of fields) {
    for (const w of words(f.value)) {
      if (w.length > MAX_TERM_LENGTH) continue;
      seen.add(w);
      if (seen.size >= MAX_TERMS_PER_SUBMISSION) return [...seen];
    }
  }
  return [...seen];
}

/**
 * An FTS5 MATCH expression requiring every term as a whole word of the `body` column and the form's token in the
 * `form` column. Each term is a double-quoted string with `"` doubled, so no query text is ever FTS syntax.
 */
export function ftsMatch(formToken: string, terms: readonly string[]): string {
  const quote = (t: string) => `"${t.replaceAll('"', '""')}"`;
  return [`form : ${quote(formToken)}`, ...terms.map((t) => `body : ${quote(t)}`)].join(' AND ');
}

/** The single FTS token standing for a form (its id without separators), so a search reads only that form. */
export const formToken = (formId: string) => `f${formId.toLowerCase().replace(/[^a-z0-9]/g, '')}`;
