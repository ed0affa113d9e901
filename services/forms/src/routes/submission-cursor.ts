import type { OrgScope } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import { z } from 'zod';
import type { FormsStore, SubmissionCursor } from '../store/forms-store.ts';

/** `[seq, tag]`: a cursor of a filtered list, valid only with the filter whose `filterTag` is `tag`. */
const FilteredCursorSchema = z.tuple([z.number().int().nonnegative(), z.string().max(40)]);

/** `[seq]`, or `[createdAt, id]` as cursors were before ADR 0015: those continue after the submission `id`. */
const CursorSchema = z.union([
  z.tuple([z.number().int().nonnegative()]).transform(([seq]) => ({ seq })),
  z.tuple([z.string().max(40), z.string().max(100)]).transform(([, afterId]) => ({ afterId })),
]);

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

/** Decodes a `cursor` of the form's list; 400 `INVALID_CURSOR` when it is malformed or names no submission of it. */
export async function resolveCursor(
  store: FormsStore,
  scope: OrgScope,
  formId: string,
  raw: string,
): Promise<SubmissionCursor> {
  let decoded: z.infer<typeof CursorSchema>;
  try {
    decoded = CursorSchema.parse(JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')));
  } catch {
    throw invalid();
  }
  if ('seq' in decoded) return decoded;
  const last = await store.getSubmission(scope, formId, decoded.afterId);
  if (!last) throw invalid();
  return { seq: last.seq };
}
