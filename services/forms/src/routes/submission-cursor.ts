import type { OrgScope } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import { z } from 'zod';
import type { FormsStore, SubmissionCursor } from '../store/forms-store.ts';

/** `[seq]`, or `[createdAt, id]` as cursors were before ADR 0015: those continue after the submission `id`. */
const CursorSchema = z.union([
  z.tuple([z.number().int().nonnegative()]).transform(([seq]) => ({ seq })),
  z.tuple([z.string().max(40), z.string().max(100)]).transform(([, afterId]) => ({ afterId })),
]);

const invalid = () => new AppError('INVALID_CURSOR');

/** The opaque `nextCursor` of a page: the position of its last item. */
export const encodeCursor = (c: SubmissionCursor) => Buffer.from(JSON.stringify([c.seq])).toString('base64url');

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
