import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { dedicatedFerretDb } from '@formgate/kit/testing/backends';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `infra/local/ferretdb-gin.sql` (ADR 15): every index FerretDB 1.24 creates on PostgreSQL gets GIN companions that
 * its `_jsonb->'f' @> value` equality pushdown can use, so a read-model page is an index read, not a table scan.
 * A FerretDB of this file's own (20 above the shared one's port, its PostgreSQL one more; `distributed.e2e.test.ts`
 * takes +10), so the shared one is never touched and runs with other TEST_FERRETDB_PORTs do not meet.
 */
const PORT = Number(process.env.TEST_FERRETDB_PORT ?? 29217) + 20;
const PG_URL = `postgres://postgres@127.0.0.1:${PORT + 1}/ferretdb`;
const run = promisify(execFile);
const sql = async (query: string) => (await run('psql', [PG_URL, '-X', '-q', '-tA', '-c', query])).stdout.trim();

let ferret: Awaited<ReturnType<typeof dedicatedFerretDb>>;
let conn: mongoose.Connection;
const things = () => {
  if (!conn.db) throw new Error('not connected');
  return conn.db.collection('things');
};
let table: string;

beforeAll(async () => {
  ferret = await dedicatedFerretDb(PORT, resolve(import.meta.dirname, '../../.run/test'));
  conn = await mongoose.createConnection(ferret.url, { dbName: 'gin_check' }).asPromise();
  await conn.db?.dropDatabase(); // the run dir is kept across runs
  await things().createIndex({ formId: 1, buckets: 1, seq: -1 }, { name: 'form_page' });
  const docs = Array.from({ length: 3000 }, (_, seq) => ({
    _id: `s${seq}` as never,
    formId: seq % 3 === 0 ? 'other' : 'big',
    seq,
    buckets: [`a${Math.floor(seq / 256)}`, `b${Math.floor((seq + 128) / 256)}`],
    fields: [{ name: 'message', value: `hello ${seq}` }],
  }));
  await things().insertMany(docs);
  table = await sql(
    `SELECT _jsonb->>'table' FROM gin_check._ferretdb_database_metadata WHERE _jsonb->>'_id' = 'things'`,
  );
  await sql(`ANALYZE gin_check."${table}"`);
}, 180_000);

afterAll(async () => {
  await conn?.close();
  await ferret?.stop();
});

describe('FerretDB on PostgreSQL with GIN companions', () => {
  it('gives every indexed field (and _id) a GIN index without a pending list', async () => {
    const rows = await sql(
      `SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'gin_check."${table}"'::regclass`,
    );
    const gins = rows.split('\n').filter((d) => d.includes('USING gin'));
    for (const field of ['_id', 'formId', 'buckets', 'seq']) {
      expect(gins.some((d) => d.includes(`(_jsonb -> '${field}'::text)`) && d.includes('fastupdate=off'))).toBe(true);
    }
  });

  it('plans the pushed-down equality of a page as an index read, not a sequential scan', async () => {
    // The statement FerretDB 1.24 sends for find({formId, buckets}) (internal/backends/postgresql/query.go).
    const plan = await sql(
      `PREPARE page(text, jsonb, text, jsonb) AS SELECT _jsonb FROM gin_check."${table}" ` +
        `WHERE _jsonb->$1 @> $2 AND _jsonb->$3 @> $4; ` +
        `EXPLAIN (FORMAT TEXT) EXECUTE page('formId', '"big"', 'buckets', '"a5"')`,
    );
    expect(plan).toMatch(/Bitmap Index Scan on \S+_gin/);
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it('answers finds exactly as before (array element and scalar equality)', async () => {
    const page = await things()
      .find({ formId: 'big', buckets: 'b3', seq: { $lt: 700 } })
      .sort({ seq: -1 })
      .toArray();
    const expected = Array.from({ length: 3000 }, (_, seq) => seq).filter(
      (seq) => seq % 3 !== 0 && Math.floor((seq + 128) / 256) === 3 && seq < 700,
    );
    expect(page.map((d) => d.seq)).toEqual(expected.reverse());
    expect(await things().findOne({ _id: 's2999' as never })).toMatchObject({ seq: 2999, formId: 'big' });
  });
});
