import type { SqliteDb } from '@formgate/store/sqlite';
import type { DeferredEmails } from '../deferred-emails.ts';
import { type DeliveryRow, NOT_FINAL, type SqliteWrite, toDeliveries, toDelivery } from './deliveries-schema.ts';

/** `DeferredEmails` on SQLite: `deferred_at` on the deliveries table. */
export function createSqliteDeferredEmails(db: SqliteDb, write: SqliteWrite): DeferredEmails {
  const s = {
    defer: db.prepare(
      `UPDATE deliveries SET deferred_at = @at, next_attempt_at = NULL, updated_at = @at, deferral_pending = 1
       WHERE id = @id AND last_claimed = @lastClaimed AND deferred_at IS NULL AND ${NOT_FINAL}`,
    ),
    get: db.prepare('SELECT * FROM deliveries WHERE id = ?'),
    deferred: db.prepare(
      // deliveries_deferred
      `SELECT * FROM deliveries WHERE org_id = ? AND deferred_at IS NOT NULL AND ${NOT_FINAL}
       ORDER BY deferred_at, id LIMIT ?`,
    ),
    orgs: db.prepare(`SELECT DISTINCT org_id FROM deliveries WHERE deferred_at IS NOT NULL AND ${NOT_FINAL}`).pluck(),
  };
  const defer = db.transaction((id: string, lastClaimed: number, at: string) => {
    s.defer.run({ id, lastClaimed, at });
    const row = s.get.get(id) as DeliveryRow | undefined;
    return row ? toDelivery(row) : null;
  });
  return {
    defer: (id, lastClaimed, at) => write(() => defer(id, lastClaimed, at)),
    listDeferred: async (orgId, limit) => toDeliveries(s.deferred.all(orgId, limit)),
    deferredOrgs: async () => s.orgs.all() as string[],
  };
}
