import type { SqliteDb } from '@formgate/store/sqlite';
import type { OrgSpamStore } from '../org-spam-store.ts';
import type { OrgSpamSettings } from '../records.ts';

interface SpamRow {
  org_id: string;
  spam: string | null;
  version: number | null;
}

const toSpam = (row: SpamRow): OrgSpamSettings => ({
  orgId: row.org_id,
  spam: row.spam === null ? null : JSON.parse(row.spam),
  version: row.version ?? 0,
});

/**
 * `OrgSpamStore` on SQLite (`org_spam`, migration 1): one row per organization whose defaults were ever set, with
 * their version and the version published (the outbox mark). A change checks the organization and the version in
 * the transaction that writes.
 */
export function createSqliteOrgSpamStore(db: SqliteDb): OrgSpamStore {
  const q = {
    current: db.prepare(
      `SELECT o.org_id, s.spam, s.version FROM organizations o LEFT JOIN org_spam s ON s.org_id = o.org_id
       WHERE o.org_id = ? AND o.deleted = 0`,
    ),
    write: db.prepare(
      `INSERT INTO org_spam (org_id, spam, version) VALUES (?, ?, ?)
       ON CONFLICT (org_id) DO UPDATE SET spam = excluded.spam, version = excluded.version`,
    ),
    // Index org_spam_unpublished.
    unpublished: db.prepare(
      `SELECT s.org_id, s.spam, s.version FROM org_spam s JOIN organizations o ON o.org_id = s.org_id
       WHERE s.version > s.published AND o.deleted = 0 ORDER BY s.org_id LIMIT ?`,
    ),
    published: db.prepare('UPDATE org_spam SET published = MAX(published, ?) WHERE org_id = ?'),
    purge: db.prepare('DELETE FROM org_spam WHERE org_id = ?'),
  };
  const current = (orgId: string) => {
    const row = q.current.get(orgId) as SpamRow | undefined;
    return row ? toSpam(row) : null;
  };
  const replace = db.transaction((orgId: string, json: string | null, expectedVersion: number) => {
    if (current(orgId)?.version !== expectedVersion) return false;
    q.write.run(orgId, json, expectedVersion + 1);
    return true;
  });

  return {
    getSpamSettings: async (scope) => current(scope.orgId),
    replaceSpamSettings: async (scope, spam, expectedVersion) =>
      replace(scope.orgId, spam === null ? null : JSON.stringify(spam), expectedVersion),
    listUnpublishedSpamSettings: async (limit) => (q.unpublished.all(limit) as SpamRow[]).map(toSpam),
    markSpamSettingsPublished: async (orgId, version) => void q.published.run(version, orgId),
    purge: async (scope) => void q.purge.run(scope.orgId),
    async close() {},
  };
}
