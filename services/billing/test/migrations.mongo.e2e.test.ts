import { useTestMongo } from '@formgate/store/testing';
import { describe, expect, it } from 'vitest';
import { migrateMongoBilling } from '../src/store/mongo/index.ts';

const mongo = useTestMongo();

/** The indexes each collection has besides `_id_`, by name. */
const INDEXES = {
  usage_entries: ['org_period', 'tally'],
  usage_counters: ['org_period'],
  emails_usage_entries: ['org_period', 'tally'],
  emails_usage_counters: ['org_period'],
  held_submissions: ['org_held'],
  deferred_emails: ['org_held'],
  stored_files: ['form', 'org_freed'],
};

describe('billing MongoDB migrations', () => {
  it('bring an empty database to the latest shape once: every index the adapters name', async () => {
    const db = mongo().db;
    if (!db) throw new Error('not connected');
    expect(await migrateMongoBilling(db)).toEqual({ scope: 'billing', applied: [1], version: 1 });
    for (const [collection, names] of Object.entries(INDEXES)) {
      const found = (await db.collection(collection).indexes()).map((i) => i.name).filter((n) => n !== '_id_');
      expect({ collection, names: found.sort() }).toEqual({ collection, names });
    }
    expect(await migrateMongoBilling(db)).toEqual({ scope: 'billing', applied: [], version: 1 });
  });
});
