import { Readable } from 'node:stream';
import { type BlobInfo, type BlobStore, BlobTooLargeError, checkBlobKey } from './blob-store.ts';
import { createGroupCommit, OverloadedError, type SqliteDb } from './sqlite.ts';
import { runSqliteMigrations, type SqliteMigration } from './sqlite-migrations.ts';

export interface SqliteBlobStoreOptions {
  /** Bytes per chunk row; a `put` holds at most about this much of its stream in memory. */
  chunkBytes?: number;
  /** Chunk bytes waiting for their commit, all uploads together; past it a `put` rejects with `OverloadedError`. */
  maxQueuedBytes?: number;
  /** Writes (chunks, deletes) waiting for their commit; past it the write rejects with `OverloadedError`. */
  maxPendingWrites?: number;
}

/** One write of the group commit: optionally clear the key, then a chunk row, then the metadata row. */
interface Write {
  key: string;
  clear?: boolean;
  chunk?: { seq: number; data: Buffer };
  meta?: { info: BlobInfo; size: number };
}

interface MetaRow {
  content_type: string;
  filename: string;
  size: number;
}

/** The store's schema, as numbered migrations (ADR 72); run when the store is created. */
const BLOB_MIGRATIONS: SqliteMigration[] = [
  {
    version: 1,
    name: 'blob chunks and metadata',
    up: (db) =>
      db.exec(`
CREATE TABLE blob_chunks (
  key TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (key, seq)
);
CREATE TABLE blobs (
  key TEXT PRIMARY KEY, content_type TEXT NOT NULL, filename TEXT NOT NULL, size INTEGER NOT NULL
) WITHOUT ROWID;`),
  },
  {
    version: 2,
    name: 'when each blob was stored (the stray sweep, issue 33)',
    // Blobs from before: 0, stored before any time.
    up: (db) => db.exec('ALTER TABLE blobs ADD COLUMN stored_at INTEGER NOT NULL DEFAULT 0'),
  },
];

// Chunks without a metadata row belong to uploads cut off by a crash: they were never visible.
const DELETE_ORPHANS = `
DELETE FROM blob_chunks WHERE key IN (
  SELECT DISTINCT c.key FROM blob_chunks c WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.key = c.key))`;

/**
 * `BlobStore` in a SQLite database (embedded mode): the stream is cut into chunk rows of `chunkBytes`, and one
 * metadata row, written with the last chunk, makes the blob visible. Every write goes through a group commit, so
 * all uploads of one event-loop turn share one transaction and one fsync (with the database's `synchronous=FULL`),
 * and a 1 KB file costs two row inserts. A failed upload deletes its chunks; if that delete itself fails, the
 * leftovers are invisible and removed the next time the store is created on the database.
 */
export function createSqliteBlobStore(db: SqliteDb, opts: SqliteBlobStoreOptions = {}): BlobStore {
  const chunkBytes = opts.chunkBytes ?? 256 * 1024;
  runSqliteMigrations(db, 'blobs', BLOB_MIGRATIONS);
  db.exec(DELETE_ORPHANS);
  const writer = createBlobWriter(db, opts);
  const selectMeta = db.prepare<[string], MetaRow>('SELECT content_type, filename, size FROM blobs WHERE key = ?');
  // By the primary key, in its order; the time is checked on each row (one per blob: the table stays small).
  const selectBefore = db
    .prepare<[string, number, number], string>(
      'SELECT key FROM blobs WHERE key > ? AND stored_at < ? ORDER BY key LIMIT ?',
    )
    .pluck();
  const selectChunk = db.prepare<[string, number], { data: Buffer }>(
    'SELECT data FROM blob_chunks WHERE key = ? AND seq = ?',
  );

  return {
    async put(key, data, info, maxBytes) {
      checkBlobKey(key);
      const meta = { info: { contentType: info.contentType, filename: info.filename }, size: 0 };
      let seq = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      try {
        for await (const piece of data as AsyncIterable<Buffer>) {
          meta.size += piece.length;
          if (meta.size > maxBytes) throw new BlobTooLargeError(maxBytes);
          pending.push(piece);
          pendingBytes += piece.length;
          while (pendingBytes >= chunkBytes) {
            const joined = join(pending, pendingBytes);
            pending = pendingBytes > chunkBytes ? [joined.subarray(chunkBytes)] : [];
            pendingBytes -= chunkBytes;
            await writer.submit({ key, clear: seq === 0, chunk: { seq, data: joined.subarray(0, chunkBytes) } });
            seq++;
          }
        }
        const chunk = pendingBytes > 0 ? { seq, data: join(pending, pendingBytes) } : undefined;
        await writer.submit({ key, clear: seq === 0, chunk, meta });
      } catch (err) {
        // Each chunk write was awaited, so the delete is queued after every chunk of this upload.
        if (seq > 0) await writer.remove(key).catch(() => {});
        throw err;
      }
      return { size: meta.size };
    },
    async get(key) {
      checkBlobKey(key);
      const row = selectMeta.get(key);
      if (!row) return null;
      return {
        stream: readChunks(row.size, (seq) => selectChunk.get(key, seq)?.data),
        info: { contentType: row.content_type, filename: row.filename },
        size: row.size,
      };
    },
    async delete(key) {
      checkBlobKey(key);
      await writer.remove(key);
    },
    async listBefore(before, cursor, limit) {
      const keys = selectBefore.all(cursor ?? '', before.getTime(), limit);
      return { keys, next: keys.length < limit ? null : (keys.at(-1) as string) };
    },
  };
}

/**
 * The group commit of one blob database. `submit` refuses chunks past `maxQueuedBytes` waiting in all; `remove` is
 * not held to that budget (it frees space, and carries no data).
 */
function createBlobWriter(db: SqliteDb, opts: SqliteBlobStoreOptions) {
  const maxQueuedBytes = opts.maxQueuedBytes ?? 64 * 1024 * 1024;
  const clearChunks = db.prepare('DELETE FROM blob_chunks WHERE key = ?');
  const clearMeta = db.prepare('DELETE FROM blobs WHERE key = ?');
  const insertChunk = db.prepare('INSERT OR REPLACE INTO blob_chunks (key, seq, data) VALUES (?, ?, ?)');
  const insertMeta = db.prepare(
    'INSERT OR REPLACE INTO blobs (key, content_type, filename, size, stored_at) VALUES (?, ?, ?, ?, ?)',
  );
  const commit = createGroupCommit<Write, void>(
    db,
    (writes) => {
      // Nothing here may throw for one write alone: a throw rolls back every upload of the turn.
      for (const w of writes) {
        if (w.clear) {
          clearChunks.run(w.key);
          clearMeta.run(w.key);
        }
        if (w.chunk) insertChunk.run(w.key, w.chunk.seq, w.chunk.data);
        if (w.meta) insertMeta.run(w.key, w.meta.info.contentType, w.meta.info.filename, w.meta.size, Date.now());
      }
      return writes.map(() => undefined);
    },
    { maxPending: opts.maxPendingWrites ?? 20_000 },
  );
  let queuedBytes = 0;
  return {
    async submit(w: Write) {
      const bytes = w.chunk?.data.length ?? 0;
      if (queuedBytes + bytes > maxQueuedBytes) throw new OverloadedError();
      queuedBytes += bytes;
      try {
        await commit.submit(w);
      } finally {
        queuedBytes -= bytes;
      }
    },
    remove: (key: string) => commit.submit({ key, clear: true }),
  };
}

/** Concatenates without copying a lone buffer (a large one would otherwise be copied once per chunk cut from it). */
const join = (pieces: Buffer[], bytes: number) =>
  pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, bytes);

/** Streams chunk rows one by one, on demand, failing if they stop before `size` bytes (deleted meanwhile). */
function readChunks(size: number, chunkAt: (seq: number) => Buffer | undefined): Readable {
  let seq = 0;
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const data = chunkAt(seq++);
      if (!data) return void this.destroy(new Error('blob was deleted while being read'));
      sent += data.length;
      this.push(data);
    },
  });
}
