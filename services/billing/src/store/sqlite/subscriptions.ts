import type { SqliteDb } from '@formgate/store/sqlite';
import type { SubscriptionChange, SubscriptionState } from '../records.ts';
import type { SubscriptionStore } from '../subscription-store.ts';

/** `SubscriptionStore` on SQLite: the applied event ids and the state change in one transaction. */
export function createSqliteSubscriptionStore(db: SqliteDb): SubscriptionStore {
  const isPurged = db.prepare('SELECT 1 FROM purged_orgs WHERE org_id = ?').pluck();
  const remember = db.prepare('INSERT OR IGNORE INTO subscription_events (event_id) VALUES (?)');
  const changedAtOf = db.prepare('SELECT changed_at FROM subscriptions WHERE org_id = ?').pluck();
  const upsert = db.prepare(
    `INSERT INTO subscriptions (org_id, event_id, changed_at, state) VALUES (?, ?, ?, ?)
     ON CONFLICT (org_id) DO UPDATE SET event_id = excluded.event_id, changed_at = excluded.changed_at, state = excluded.state`,
  );
  const read = db.prepare('SELECT state FROM subscriptions WHERE org_id = ?').pluck();
  const tombstone = db.prepare('INSERT OR IGNORE INTO purged_orgs (org_id) VALUES (?)');
  const remove = db.prepare('DELETE FROM subscriptions WHERE org_id = ?');

  const apply = db.transaction((change: SubscriptionChange): boolean => {
    if (isPurged.get(change.orgId) !== undefined) return false;
    if (remember.run(change.eventId).changes === 0) return false;
    const current = changedAtOf.get(change.orgId) as string | undefined;
    if (current !== undefined && current > change.changedAt) return false;
    const { eventId, orgId, ...state } = change;
    upsert.run(orgId, eventId, change.changedAt, JSON.stringify(state));
    return true;
  });
  const purge = db.transaction((orgId: string) => {
    tombstone.run(orgId);
    remove.run(orgId);
  });

  return {
    apply: async (change) => apply(change),
    async get(scope) {
      const state = read.get(scope.orgId) as string | undefined;
      return state === undefined ? null : (JSON.parse(state) as SubscriptionState);
    },
    purgeOrganization: async (scope) => purge(scope.orgId),
    async close() {},
  };
}
