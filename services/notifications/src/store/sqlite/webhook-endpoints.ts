import type { SqliteDb } from '@formgate/store/sqlite';
import type { WebhookEndpoint } from '../records.ts';
import { definedChanges, disablingKey, type WebhookEndpointStore, withDisabling } from '../webhook-endpoints.ts';

/** An endpoint's row with the service's disabling for its current `enabledAt`, if any. */
const READ = `
SELECT e.doc, d.reason, d.at FROM webhook_endpoints e
LEFT JOIN webhook_endpoint_disablings d ON d.key = 'disabled:' || e.id || ':' || json_extract(e.doc, '$.enabledAt')`;

interface Row {
  doc: string;
  reason: string | null;
  at: string | null;
}

/**
 * `WebhookEndpointStore` on SQLite (embedded mode): the limit is a count and an insert in one transaction, and so is
 * an update's check of the revision it is based on. The service's disablings are rows of their own, as on MongoDB
 * (the same behaviour; see `withDisabling`).
 */
export function createSqliteWebhookEndpointStore(db: SqliteDb): WebhookEndpointStore {
  const s = {
    count: db.prepare('SELECT count(*) FROM webhook_endpoints WHERE form_id = ?').pluck(),
    insert: db.prepare(
      'INSERT INTO webhook_endpoints (id, org_id, form_id, created_at, doc) VALUES (@id, @orgId, @formId, @createdAt, @doc)',
    ),
    doc: db.prepare('SELECT doc FROM webhook_endpoints WHERE id = ? AND org_id = ?').pluck(),
    get: db.prepare(`${READ} WHERE e.id = ? AND e.org_id = ?`),
    byForm: db.prepare(`${READ} WHERE e.form_id = ? AND e.org_id = ? ORDER BY e.created_at, e.id`),
    save: db.prepare('UPDATE webhook_endpoints SET doc = ? WHERE id = ? AND org_id = ?'),
    remove: db.prepare('DELETE FROM webhook_endpoints WHERE id = ? AND org_id = ?'),
    removeDisablings: db.prepare('DELETE FROM webhook_endpoint_disablings WHERE endpoint_id = ?'),
    disable: db.prepare(
      'INSERT OR IGNORE INTO webhook_endpoint_disablings (key, endpoint_id, reason, at) VALUES (?, ?, ?, ?)',
    ),
    notice: db.prepare('INSERT OR IGNORE INTO webhook_notices (key) VALUES (?)'),
  };
  const read = (row: unknown) => {
    const { doc, reason, at } = row as Row;
    const stored = JSON.parse(doc) as WebhookEndpoint;
    return withDisabling(stored, reason === null || at === null ? undefined : { reason, at });
  };
  const create = db.transaction((endpoint: WebhookEndpoint, limit: number) => {
    if ((s.count.get(endpoint.formId) as number) >= limit) return 'limit-reached' as const;
    s.insert.run({ ...endpoint, doc: JSON.stringify(endpoint) });
    return 'created' as const;
  });
  const update = db.transaction((orgId: string, id: string, changes: object, basedOn: number) => {
    const doc = s.doc.get(id, orgId);
    if (doc === undefined) return null;
    const stored = JSON.parse(doc as string) as WebhookEndpoint;
    // Endpoints stored before revisions were counted are at revision 0.
    if ((stored.revision ?? 0) !== basedOn) return 'conflict' as const;
    s.save.run(JSON.stringify({ ...stored, ...changes, revision: basedOn + 1 }), id, orgId);
    return read(s.get.get(id, orgId));
  });
  const remove = db.transaction((orgId: string, id: string) => {
    if (s.remove.run(id, orgId).changes !== 1) return false;
    s.removeDisablings.run(id);
    return true;
  });
  return {
    create: async (endpoint, { limit }) => create(endpoint, limit),
    async get(scope, id) {
      const row = s.get.get(id, scope.orgId);
      return row === undefined ? null : read(row);
    },
    listByForm: async (scope, formId) => s.byForm.all(formId, scope.orgId).map(read),
    update: async (scope, id, changes, basedOn) => update(scope.orgId, id, definedChanges(changes), basedOn.revision),
    disable: async (endpoint, { reason, at }) =>
      s.disable.run(disablingKey(endpoint.id, endpoint.enabledAt), endpoint.id, reason, at).changes === 1,
    remove: async (scope, id) => remove(scope.orgId, id),
    claimNotice: async (key) => s.notice.run(key).changes === 1,
  };
}
