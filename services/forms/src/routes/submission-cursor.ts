import { AppError } from '@formgate/kit';
import { z } from 'zod';
import type { SubmissionCursor } from '../store/records.ts';

/** `[seq, tag]`: a cursor of a filtered list, valid only with the filter whose `filterTag` is `tag`. */
const FilteredCursorSchema = z.tuple([z.number().int().nonnegative(), z.string().max(40)]);

/** `[seq]`: a cursor of the form's whole list. */
const CursorSchema = z.tuple([z.number().int().nonnegative()]);

const invalid = () => new AppError('INVALID_CURSOR');

/** The opaque `nextCursor` of a page: the position of its last item (and the tag of the list's filter, if any). */
export const encodeCursor = (c: SubmissionCursor, tag?: string) =>
  Buffer.from(JSON.stringify(tag === undefined ? [c.seq] : [c.seq, tag])).toString('base64url');

const decode = (raw: string): unknown => {
  try {
    return JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
};

/** Decodes a `cursor` of a filtered list; 400 `INVALID_CURSOR` unless it was made for the filter tagged `tag`. */
export function resolveFilteredCursor(raw: string, tag: string): SubmissionCursor {
  const parsed = FilteredCursorSchema.safeParse(decode(raw));
  if (!parsed.success || parsed.data[1] !== tag) throw invalid();
  return { seq: parsed.data[0] };
}

/** Decodes a `cursor` of the form's list; 400 `INVALID_CURSOR` when it is malformed. */
export function resolveCursor(raw: string): SubmissionCursor {
  const parsed = CursorSchema.safeParse(decode(raw));
  if (!parsed.success) throw invalid();
  return { seq: parsed.data[0] };
}
