import { AppError } from '@formgate/kit';
import { z } from 'zod';
import type { SubmissionCursor } from '../store/records.ts';

/**
 * `[seq]`: a position in a form's list, newest first. It holds no filter: with any filters, the next page is the
 * matching submissions after that position (as Stripe's `starting_after` is an object's id), so a client may change
 * its filters between pages and still go on from where it was.
 */
const CursorSchema = z.tuple([z.number().int().nonnegative()]);

const invalid = () => new AppError('INVALID_CURSOR');

/** The opaque `nextCursor` of a page: the position of its last item. */
export const encodeCursor = (c: SubmissionCursor) => Buffer.from(JSON.stringify([c.seq])).toString('base64url');

const decode = (raw: string): unknown => {
  try {
    return JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
};

/** Decodes a `cursor`; 400 `INVALID_CURSOR` when it is malformed. */
export function resolveCursor(raw: string): SubmissionCursor {
  const parsed = CursorSchema.safeParse(decode(raw));
  if (!parsed.success) throw invalid();
  return { seq: parsed.data[0] };
}
