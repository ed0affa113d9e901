import type { SubmissionFilterQuery } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import type { SubmissionFilter } from '../store/records.ts';
import { MAX_TERM_LENGTH, words } from '../store/search-terms.ts';

/** Longest `q` accepted, in characters, and most words in it. */
export const MAX_QUERY_LENGTH = 200;
export const MAX_QUERY_TERMS = 8;

/**
 * The store's filter for the query parameters, as the route's query schema parsed them (`SubmissionFilterQuerySchema`
 * in both the list's and the export's). `q` is split into words (`search-terms.ts`); every word must occur.
 * 400 `FORMS_INVALID_SEARCH` when `q` is longer than `MAX_QUERY_LENGTH`, has no word, more than `MAX_QUERY_TERMS`
 * words or a word longer than `MAX_TERM_LENGTH`. The text is never interpreted as a query language.
 */
export function filterOf({ q, ...rest }: SubmissionFilterQuery): SubmissionFilter {
  const filter: SubmissionFilter = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (q === undefined) return filter;
  if (q.length > MAX_QUERY_LENGTH)
    throw new AppError('FORMS_INVALID_SEARCH', undefined, { details: { reason: 'too long' } });
  const terms = [...new Set(words(q))];
  if (terms.length === 0) throw new AppError('FORMS_INVALID_SEARCH', undefined, { details: { reason: 'no word' } });
  if (terms.length > MAX_QUERY_TERMS) {
    throw new AppError('FORMS_INVALID_SEARCH', undefined, { details: { reason: 'too many words' } });
  }
  if (terms.some((t) => t.length > MAX_TERM_LENGTH)) {
    throw new AppError('FORMS_INVALID_SEARCH', undefined, { details: { reason: 'word too long' } });
  }
  return { ...filter, terms: terms.sort() };
}

export const isFiltered = (f: SubmissionFilter) => Object.keys(f).length > 0;

/** Held submissions (issue 13) are left out unless `held` asks for them: `held=true` lists only them. */
export const withoutHeldByDefault = (f: SubmissionFilter): SubmissionFilter => ({ held: false, ...f });
