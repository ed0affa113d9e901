import { describe, expect, it } from 'vitest';
import type { MongoDb } from '../src/mongo.ts';
import { pageReadFor } from '../src/mongo-page-buckets.ts';
import { useTestMongo } from '../src/testing.ts';

const testDb = useTestMongo();

describe('pageReadFor', () => {
  it('answers page buckets on FerretDB (it names itself in its build info), one indexed find on MongoDB', async () => {
    const db = testDb().db as MongoDb;
    const info = JSON.stringify(await db.admin().command({ buildInfo: 1 })).toLowerCase();
    expect((await pageReadFor(db)) === 'buckets').toBe(info.includes('ferretdb'));
  });
});
