import type { SqliteDb } from '@formgate/store/sqlite';
import { definedChanges, type WebhookEndpoint, type WebhookEndpointStore } from './webhook-endpoint-store.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, form_id TEXT NOT NULL, created_at TEXT NOT NULL, doc TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS webhook_endpoints_form ON webhook_endpoints (form_id, created_at);
CREATE TABLE IF NOT EXISTS webhook_notices (key TEXT PRIMARY KEY) WITHOUT ROWID;
`;

/** `WebhookEndpointStore` on SQLite (embedded mode): the limit is a count and an insert in one transaction. */
export function createSqliteWebhookEndpointStore(db: SqliteDb): WebhookEndpointStore {
  db.exec(SCHEMA);
  const s = {
    count: db.prepare('SELECT count(*) FROM webhook_endpoints WHERE form_id = ?').pluck(),
    insert: db.prepare(
      'INSERT INTO webhook_endpoints (id, org_id, form_id, created_at, doc) VALUES (@id, @orgId, @formId, @createdAt, @doc)',
    ),
    get: db.prepare('SELECT doc FROM webhook_endpoints WHERE id = ? AND org_id = ?').pluck(),
    byForm: db
      .prepare('SELECT doc FROM webhook_endpoints WHERE form_id = ? AND org_id = ? ORDER BY created_at, id')
      .pluck(),
    save: db.prepare('UPDATE webhook_endpoints SET doc = ? WHERE id = ? AND org_id = ?'),
    remove: db.prepare('DELETE FROM webhook_endpoints WHERE id = ? AND org_id = ?'),
    notice: db.prepare('INSERT OR IGNORE INTO webhook_notices (key) VALUES (?)'),
  };
  const parse = (doc: unknown) => JSON.parse(doc as string) as WebhookEndpoint;
  const create = db.transaction((endpoint: WebhookEndpoint, limit: number) => {
    if ((s.count.get(endpoint.formId) as number) >= limit) return 'limit-reached' as const;
    s.insert.run({ ...endpoint, doc: JSON.stringify(endpoint) });
    return 'created' as const;
  });
  const update = db.transaction((orgId: string, id: string, changes: object) => {
    const doc = s.get.get(id, orgId);
    if (doc === undefined) return null;
    const next = { ...parse(doc), ...changes };
    s.save.run(JSON.stringify(next), id, orgId);
    return next;
  });
  return {
    create: async (endpoint, { limit }) => create(endpoint, limit),
    async get(scope, id) {
      const doc = s.get.get(id, scope.orgId);
      return doc === undefined ? null : parse(doc);
    },
    listByForm: async (scope, formId) => s.byForm.all(formId, scope.orgId).map(parse),
    update: async (scope, id, changes) => update(scope.orgId, id, definedChanges(changes)),
    remove: async (scope, id) => s.remove.run(id, scope.orgId).changes === 1,
    claimNotice: async (key) => s.notice.run(key).changes === 1,
  };
}
