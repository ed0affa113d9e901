import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type SqliteDb = Database.Database;

export interface OpenSqliteOptions {
  /** `FULL` (default) fsyncs the WAL on every commit: a committed transaction survives power loss. */
  synchronous?: 'FULL' | 'NORMAL';
  /** Hold the file exclusively: a second process opening the same data dir fails instead of corrupting state. */
  exclusive?: boolean;
}

/** Opens (creating if needed) a SQLite database in WAL mode with Formgate's durability and erasure settings. */
export function openSqlite(file: string, opts: OpenSqliteOptions = {}): SqliteDb {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${opts.synchronous ?? 'FULL'}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // Deleted and overwritten content is zeroed in the file, not left in free space: an erasure (issue 31) leaves no
  // byte of what it erased once the WAL is checkpointed (docs/privacy.md).
  db.pragma('secure_delete = ON');
  if (opts.exclusive) {
    db.pragma('locking_mode = EXCLUSIVE');
    try {
      // Taking a write lock now makes a second process fail at open, not at its first write.
      db.exec('BEGIN EXCLUSIVE; COMMIT;');
    } catch (err) {
      db.close();
      throw new Error(`${file} is in use by another process (is Formgate already running on this data dir?)`, {
        cause: err,
      });
    }
  }
  return db;
}

/**
 * A store-health probe of `db` (`StoreHealth.register`): a real read of the file — its schema — not a no-op
 * `SELECT 1`. Throws when the file does not answer.
 */
export function sqliteProbe(db: SqliteDb): () => void {
  const read = db.prepare('SELECT count(*) FROM sqlite_schema');
  return () => void read.get();
}

export class OverloadedError extends Error {
  constructor() {
    super('write queue is full');
    this.name = 'OverloadedError';
  }
}

export interface GroupCommit<T, R> {
  /** Queues `item`; resolves with its result after the transaction holding it has committed. */
  submit(item: T): Promise<R>;
  /** Resolves when everything queued so far has been committed or failed. */
  drain(): Promise<void>;
  readonly pending: number;
}

interface Pending<T, R> {
  item: T;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: every item submitted during one event-loop turn is written in ONE transaction (one fsync), and
 * each caller is answered only after that commit. `apply` runs inside the transaction and returns one result per
 * item; if it throws, the whole group is rolled back and every caller in it is rejected. A full queue rejects
 * at once with `OverloadedError` so callers can shed load (503) instead of buffering without bound.
 */
export function createGroupCommit<T, R>(
  db: SqliteDb,
  apply: (items: T[]) => R[],
  opts: { maxPending?: number; onRollback?: (err: unknown) => void } = {},
): GroupCommit<T, R> {
  const maxPending = opts.maxPending ?? 20_000;
  let queue: Pending<T, R>[] = [];
  let scheduled: Promise<void> | null = null;
  const run = db.transaction((items: T[]) => apply(items));

  const flush = () => {
    const group = queue;
    queue = [];
    scheduled = null;
    let results: R[];
    try {
      results = run(group.map((p) => p.item));
    } catch (err) {
      opts.onRollback?.(err);
      for (const p of group) p.reject(err);
      return;
    }
    for (const [i, p] of group.entries()) p.resolve(results[i] as R);
  };

  return {
    submit(item) {
      if (queue.length >= maxPending) return Promise.reject(new OverloadedError());
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        scheduled ??= new Promise<void>((done) =>
          setImmediate(() => {
            flush();
            done();
          }),
        );
      });
    },
    async drain() {
      while (scheduled) await scheduled;
    },
    get pending() {
      return queue.length;
    },
  };
}

/**
 * Checkpoints `db`'s WAL into the file and truncates it, retrying (every 50 ms, about 5 s in all) while another
 * connection's reader holds it; false when it never could. With `secure_delete`, what was deleted or overwritten
 * then survives in neither file (an erasure, issue 31).
 */
export async function truncateWal(db: SqliteDb): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (result?.busy === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
