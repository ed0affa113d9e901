import { randomUUID } from 'node:crypto';
import { checkMigrations, checkNotAhead, type Migration, type MigrationRun } from './migrations.ts';
import { isDuplicateKeyError, type MongoDb } from './mongo.ts';

export type MongoMigration = Migration<MongoDb>;

/** Where a database records its migrations (one document per applied version) and their lock. */
export const MIGRATIONS_COLLECTION = 'formgate_migrations';

interface LedgerDoc {
  _id: string;
  scope: string;
  version?: number;
  name?: string;
  appliedAt?: Date;
  /** Lock documents only: who holds it and until when. */
  holder?: string;
  until?: Date;
}

export interface MongoMigrationOptions {
  /** How long a lock holds without being renewed: a process that died holding it frees it after this. */
  leaseMs?: number;
  /** How often a process waiting for the lock looks again. */
  pollMs?: number;
  now?: () => Date;
}

const versionId = (scope: string, version: number) => `${scope}:${String(version).padStart(4, '0')}`;

/** The version a scope's store has reached (0: none of its migrations has run). */
export async function mongoSchemaVersion(db: MongoDb, scope: string): Promise<number> {
  // No index but `_id`: a scan of the ledger (a few documents per scope); an equality only, which FerretDB 1.24
  // pushes down.
  const docs = await db.collection<LedgerDoc>(MIGRATIONS_COLLECTION).find({ scope }).toArray();
  return docs.reduce((max, d) => (typeof d.version === 'number' && d.version > max ? d.version : max), 0);
}

/**
 * Runs the scope's migrations the database has not recorded yet. Instances that boot together take turns: one
 * holds the scope's lock (a document with a lease, renewed between migrations) while the others wait and then find
 * nothing left to do. A migration and its record are two writes, so each migration must be safe to run again.
 *
 * Not a FerretDB 1.24 pattern: MongoDB 7/8 runs it the same way, as its transactions need a replica set and cannot
 * build an index on an existing collection (a migration and its record are two writes there too). The lease's
 * renewal (`updateOne({_id, holder})`) is atomic there; FerretDB reads and writes the document back, so a renewal
 * could overwrite a lock another process took over in between, once a lease has run out.
 */
export async function runMongoMigrations(
  db: MongoDb,
  scope: string,
  migrations: readonly MongoMigration[],
  opts: MongoMigrationOptions = {},
): Promise<MigrationRun> {
  checkMigrations(scope, migrations);
  const now = opts.now ?? (() => new Date());
  const leaseMs = opts.leaseMs ?? 60_000;
  const pollMs = opts.pollMs ?? 250;
  const ledger = db.collection<LedgerDoc>(MIGRATIONS_COLLECTION);
  const known = migrations.length;
  const current = await mongoSchemaVersion(db, scope);
  checkNotAhead(scope, current, known);
  if (current === known) return { scope, applied: [], version: known };

  // Every other read and write of the ledger is by `_id`: the lock, and each version's record.
  const lockId = `${scope}:lock`;
  const holder = randomUUID();
  const lease = () => new Date(now().getTime() + leaseMs);
  for (;;) {
    try {
      await ledger.insertOne({ _id: lockId, scope, holder, until: lease() });
      break;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    const lock = await ledger.findOne({ _id: lockId });
    if (lock?.until && lock.until.getTime() < now().getTime()) {
      // Its holder died: free it, unless someone else renewed or took it meanwhile (the match is on both fields).
      await ledger.deleteOne({ _id: lockId, holder: lock.holder });
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  try {
    const start = await mongoSchemaVersion(db, scope);
    checkNotAhead(scope, start, known);
    const applied: number[] = [];
    for (const m of migrations.slice(start)) {
      const renewed = await ledger.updateOne({ _id: lockId, holder }, { $set: { until: lease() } });
      if (renewed.matchedCount !== 1) throw new Error(`${scope}: lost the migration lock before version ${m.version}`);
      await m.up(db);
      await ledger.updateOne(
        { _id: versionId(scope, m.version) },
        { $set: { scope, version: m.version, name: m.name, appliedAt: now() } },
        { upsert: true },
      );
      applied.push(m.version);
    }
    return { scope, applied, version: known };
  } finally {
    await ledger.deleteOne({ _id: lockId, holder }).catch(() => {});
  }
}
