import type { SqliteDb } from '@formgate/store/sqlite';
import type { GoneSubmissions } from '../gone-submissions.ts';
import type { SqliteWrite } from './deliveries-schema.ts';

/** `GoneSubmissions` on SQLite: a row per submission, its writes in the pipeline's group commit. */
export function createSqliteGoneSubmissions(db: SqliteDb, write: SqliteWrite): GoneSubmissions {
  const s = {
    mark: db.prepare(
      'INSERT OR IGNORE INTO gone_submissions (submission_id, org_id, gone_at) VALUES (@submissionId, @orgId, @goneAt)',
    ),
    // By primary key, one search per id asked.
    gone: db.prepare(
      'SELECT submission_id, org_id FROM gone_submissions WHERE submission_id IN (SELECT value FROM json_each(?))',
    ),
    // Index gone_submissions_org.
    purge: db.prepare('DELETE FROM gone_submissions WHERE org_id = ?'),
  };
  return {
    async markGone(gone) {
      await write(() => s.mark.run(gone));
    },
    async listGone(submissions) {
      if (submissions.length === 0) return new Set();
      const rows = s.gone.all(JSON.stringify(submissions.map((x) => x.submissionId))) as {
        submission_id: string;
        org_id: string;
      }[];
      const orgOf = new Map(rows.map((r) => [r.submission_id, r.org_id]));
      return new Set(submissions.filter((x) => orgOf.get(x.submissionId) === x.orgId).map((x) => x.submissionId));
    },
    async purgeOrganization(scope) {
      await write(() => s.purge.run(scope.orgId));
    },
  };
}
