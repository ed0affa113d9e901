import type { MongoMigration } from '@formgate/store/mongo';
import { Collections } from '../schema.ts';

/**
 * Erasure by submitter (issue 31): `form_submissions.org_addresses` (orgId, addressKeys: multikey) finds an
 * organization's submissions by the keyed hash of an address; `form_erasures.org_erased` lists its receipts newest
 * first.
 */
export const indexSubmitterAddresses: MongoMigration = {
  version: 2,
  name: 'index submitter addresses and erasure receipts',
  async up(db) {
    await Promise.all([
      db.collection(Collections.submissions).createIndex({ orgId: 1, addressKeys: 1 }, { name: 'org_addresses' }),
      db.collection(Collections.erasures).createIndex({ orgId: 1, erasedAt: -1, _id: -1 }, { name: 'org_erased' }),
    ]);
  },
};
