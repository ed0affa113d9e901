import type { MongoMigration } from '@formgate/store/mongo';
import { Collections } from '../schema.ts';

/** The stray sweep (issue 33): `form_submissions.file_blobs` (`files.blobKey`, multikey) finds a file's submission. */
export const indexSubmissionFiles: MongoMigration = {
  version: 4,
  name: 'index the blob keys of stored submissions',
  async up(db) {
    await db.collection(Collections.submissions).createIndex({ 'files.blobKey': 1 }, { name: 'file_blobs' });
  },
};
