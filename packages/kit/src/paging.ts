import { AppError } from '@formgate/contracts';
import { z } from 'zod';

export { PageQuerySchema } from '@formgate/contracts';

const CursorSchema = z.tuple([z.string().max(40), z.string().max(200)]);

/**
 * An opaque cursor for a newest-first list ordered by a timestamp and then an id: the position of the last item of
 * the previous page. A cursor this codec did not make is refused with `INVALID_CURSOR`.
 */
export function keysetCursor<const T extends string, const I extends string>(timeKey: T, idKey: I) {
  type Cursor = Record<T | I, string>;
  return {
    encode: (c: Cursor) => Buffer.from(JSON.stringify([c[timeKey], c[idKey]])).toString('base64url'),
    decode(raw: string): Cursor {
      try {
        const [time, id] = CursorSchema.parse(JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')));
        return { [timeKey]: time, [idKey]: id } as Cursor;
      } catch {
        throw new AppError('INVALID_CURSOR');
      }
    },
  };
}

/**
 * One page of a list in the API's envelope `{ data, nextCursor }`: reads one row more than `limit` to know whether
 * another page follows; `nextCursor` is null on the last page.
 */
export async function readPage<Row, Dto>(
  limit: number,
  read: (rows: number) => Promise<Row[]>,
  toDto: (row: Row) => Dto,
  cursorOf: (row: Row) => string,
): Promise<{ data: Dto[]; nextCursor: string | null }> {
  const rows = await read(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { data: page.map(toDto), nextCursor: rows.length > limit && last ? cursorOf(last) : null };
}
