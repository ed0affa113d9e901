import type { LogPositions } from '@formgate/bus';
import { z } from 'zod';

/**
 * Where an event stream is in each topic it follows: per topic, per partition, the offset of the next record to read.
 * It is every event's `id:` (base64url of its JSON), so a client reconnecting with `Last-Event-ID` resumes exactly
 * after the last event it saw (ADR 98).
 */
export type StreamCursor = Record<string, LogPositions>;

const CursorSchema = z.record(
  z.string().max(100),
  z.record(z.string().regex(/^\d{1,4}$/), z.string().regex(/^\d{1,19}$/)),
);

export const encodeCursor = (cursor: StreamCursor): string => Buffer.from(JSON.stringify(cursor)).toString('base64url');

/** The cursor a `Last-Event-ID` names; undefined when there is none or it is not one this service wrote. */
export function decodeCursor(id: string | undefined): StreamCursor | undefined {
  if (!id || id.length > 2_000) return undefined;
  try {
    const parsed = CursorSchema.safeParse(JSON.parse(Buffer.from(id, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
