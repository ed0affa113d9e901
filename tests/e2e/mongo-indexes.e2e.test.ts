import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributed } from '../harness/processes.ts';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS;
const MONGO_URL = process.env.MONGO_URL;
if (!KAFKA_BROKERS || !MONGO_URL) {
  throw new Error('KAFKA_BROKERS and MONGO_URL must be set (the e2e global setup provides them)');
}

interface DocumentedIndex {
  name: string;
  unique: boolean;
}
interface DocumentedCollection {
  database: string;
  collection: string;
  indexes: DocumentedIndex[];
}

const NAMES = /^`[a-z_]+`(, `[a-z_]+`)*$/;

/**
 * The "MongoDB indexes" table of `docs/operations.md`, the one list of them: a row's collections (`a`, `b`) and
 * their index lists (`x` (unique), `y`; `z`) in the same order; names in parentheses are notes. Rows naming no
 * collection of their own (better-auth's, GridFS') are returned apart, by database.
 */
function documentedIndexes(): { collections: DocumentedCollection[]; unlisted: string[] } {
  const doc = readFileSync(resolve(import.meta.dirname, '../../docs/operations.md'), 'utf8');
  const section = doc.split('## MongoDB indexes')[1]?.split('\n## ')[0] ?? '';
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|').map((cell) => cell.trim()));
  const collections: DocumentedCollection[] = [];
  const unlisted: string[] = [];
  for (const [, db = '', names = '', indexes = ''] of rows) {
    const database = db.replaceAll('`', '');
    if (!NAMES.test(names)) {
      unlisted.push(database);
      continue;
    }
    const lists = indexes.split(';');
    const named = names.split(',').map((n) => n.trim().replaceAll('`', ''));
    if (lists.length !== named.length) throw new Error(`docs/operations.md: ${names} has ${lists.length} index lists`);
    named.forEach((collection, i) => {
      const outside = (lists[i] ?? '').replace(/\((?!unique\))[^)]*\)/g, '');
      const found = [...outside.matchAll(/`([a-z_]+)`( \(unique\))?/g)];
      collections.push({
        database,
        collection,
        indexes: found.map(([, name = '', unique]) => ({ name, unique: unique !== undefined })),
      });
    });
  }
  return { collections, unlisted };
}

/** docs/operations.md's index table against the databases of a deployment whose services have just started. */
describe('distributed mode: MongoDB indexes made at start', () => {
  let cluster: Awaited<ReturnType<typeof startDistributed>>;
  let client: mongoose.mongo.MongoClient;

  beforeAll(async () => {
    cluster = await startDistributed({ kafkaBrokers: KAFKA_BROKERS, mongoUrl: MONGO_URL });
    client = await mongoose.mongo.MongoClient.connect(MONGO_URL);
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
    const dbs = await client?.db().admin().listDatabases();
    for (const { name } of dbs?.databases ?? []) {
      if (name.startsWith(`${cluster.mongoDbPrefix}_`)) await client.db(name).dropDatabase();
    }
    await client?.close();
  });

  it('reads the table: every service database, only better-auth and GridFS by reference', () => {
    const { collections, unlisted } = documentedIndexes();
    expect(new Set(collections.map((c) => c.database))).toEqual(new Set(['forms', 'billing', 'notifications', 'orgs']));
    expect(unlisted).toEqual(['accounts', 'files']);
    expect(collections.filter((c) => c.indexes.length === 0)).toEqual([]);
  });

  it('every documented collection has exactly its documented indexes, unique where the table says', async () => {
    const byName = (a: DocumentedIndex, b: DocumentedIndex) => a.name.localeCompare(b.name);
    const expected: Record<string, DocumentedIndex[]> = {};
    const actual: Record<string, DocumentedIndex[]> = {};
    for (const { database, collection, indexes } of documentedIndexes().collections) {
      const listed = await client.db(`${cluster.mongoDbPrefix}_${database}`).collection(collection).indexes();
      expected[`${database}.${collection}`] = [...indexes].sort(byName);
      actual[`${database}.${collection}`] = listed
        .filter((ix) => ix.name !== '_id_')
        .map((ix) => ({ name: ix.name ?? '', unique: ix.unique === true }))
        .sort(byName);
    }
    expect(actual).toEqual(expected);
  });
});
