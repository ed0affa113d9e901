import type { Form } from '@formgate/contracts';
import type { SqliteDb } from '@formgate/store/sqlite';
import type { FoundSubmission } from '../erasures.ts';
import type { RetentionStore } from '../retention.ts';
import { parseForm } from './form-outbox.ts';

/** `RetentionStore` on SQLite: defaults in `org_retention`, live submissions by `submissions_live_by_time` (migration 6). */
export function createSqliteRetention(db: SqliteDb): RetentionStore {
  const q = {
    get: db.prepare('SELECT days FROM org_retention WHERE org_id = ?').pluck(),
    set: db.prepare(
      'INSERT INTO org_retention (org_id, days) VALUES (?, ?) ON CONFLICT (org_id) DO UPDATE SET days = excluded.days',
    ),
    forms: db.prepare('SELECT doc FROM forms WHERE id > ? ORDER BY id LIMIT ?'),
    // Partial index `submissions_live_by_time` (form_id, created_at, id) WHERE deleted = 0.
    expired: db.prepare(
      `SELECT id, form_id, created_at FROM submissions INDEXED BY submissions_live_by_time
       WHERE form_id = ? AND deleted = 0 AND created_at < ? AND org_id = ? ORDER BY created_at, id LIMIT ?`,
    ),
    oldest: db
      .prepare(
        `SELECT created_at FROM submissions INDEXED BY submissions_live_by_time
         WHERE form_id = ? AND deleted = 0 AND org_id = ? ORDER BY created_at LIMIT 1`,
      )
      .pluck(),
  };
  return {
    async getOrgDays(scope) {
      return (q.get.get(scope.orgId) as number | null | undefined) ?? null;
    },
    async setOrgDays(scope, days) {
      q.set.run(scope.orgId, days);
    },
    async listForms(afterId, limit) {
      return q.forms.all(afterId, limit).map((r) => parseForm(r) as Form);
    },
    async listExpired(scope, formId, before, limit) {
      const rows = q.expired.all(formId, before, scope.orgId, limit) as {
        id: string;
        form_id: string;
        created_at: string;
      }[];
      return rows.map((r): FoundSubmission => ({ id: r.id, formId: r.form_id, createdAt: r.created_at }));
    },
    async oldestAt(scope, formId) {
      return (q.oldest.get(formId, scope.orgId) as string | undefined) ?? null;
    },
  };
}
