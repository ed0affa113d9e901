import type { SqliteDb } from '@formgate/store/sqlite';
import { nextMailCounter, type RecipientStore } from '../recipients.ts';
import type { MailCounter, Recipient } from '../records.ts';

interface Row {
  id: string;
  org_id: string;
  email: string;
  created_at: number;
  verified_at: number | null;
}
interface CounterRow {
  window_start: number;
  sent_in_window: number;
  last_sent_at: number;
}

const toRecipient = (r: Row): Recipient => ({
  id: r.id,
  orgId: r.org_id,
  email: r.email,
  verified: r.verified_at !== null,
  createdAt: new Date(r.created_at),
  verifiedAt: r.verified_at === null ? null : new Date(r.verified_at),
});

/** The store's prepared statements. */
function statements(db: SqliteDb) {
  return {
    list: db.prepare('SELECT * FROM notification_emails WHERE org_id = ? ORDER BY created_at, id'),
    get: db.prepare('SELECT * FROM notification_emails WHERE org_id = ? AND id = ?'),
    byEmail: db.prepare('SELECT * FROM notification_emails WHERE org_id = ? AND email = ?'),
    count: db.prepare('SELECT count(*) FROM notification_emails WHERE org_id = ?').pluck(),
    insert: db.prepare(
      'INSERT INTO notification_emails (id, org_id, email, created_at, verified_at) VALUES (?, ?, ?, ?, ?)',
    ),
    verify: db.prepare(
      'UPDATE notification_emails SET verified_at = coalesce(verified_at, ?) WHERE org_id = ? AND id = ? AND email = ?',
    ),
    remove: db.prepare('DELETE FROM notification_emails WHERE org_id = ? AND id = ?'),
    verified: db.prepare('SELECT email FROM notification_emails WHERE org_id = ? AND verified_at IS NOT NULL').pluck(),
    counter: db.prepare(
      'SELECT window_start, sent_in_window, last_sent_at FROM notification_email_mails WHERE org_id = ? AND email = ?',
    ),
    putCounter: db.prepare(
      `INSERT INTO notification_email_mails (org_id, email, window_start, sent_in_window, last_sent_at)
     VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET window_start = excluded.window_start,
     sent_in_window = excluded.sent_in_window, last_sent_at = excluded.last_sent_at`,
    ),
    putName: db.prepare(
      'INSERT INTO notification_org_names (org_id, name) VALUES (?, ?) ON CONFLICT DO UPDATE SET name = excluded.name',
    ),
    getName: db.prepare('SELECT name FROM notification_org_names WHERE org_id = ?').pluck(),
    purgeStatements: ['notification_emails', 'notification_email_mails', 'notification_org_names'].map((t) =>
      db.prepare(`DELETE FROM ${t} WHERE org_id = ?`),
    ),
  };
}

/** `RecipientStore` on SQLite: each operation is one statement or one transaction. */
export function createSqliteRecipientStore(db: SqliteDb): RecipientStore {
  const {
    list,
    get,
    byEmail,
    count,
    insert,
    verify,
    remove,
    verified,
    counter,
    putCounter,
    putName,
    getName,
    purgeStatements,
  } = statements(db);

  const add = db.transaction(
    (orgId: string, input: { id: string; email: string; createdAt: Date; verifiedAt: Date | null }, limit: number) => {
      const email = input.email.toLowerCase();
      const existing = byEmail.get(orgId, email) as Row | undefined;
      if (existing) return { outcome: 'exists' as const, recipient: toRecipient(existing) };
      if ((count.get(orgId) as number) >= limit) return { outcome: 'limit-reached' as const };
      insert.run(input.id, orgId, email, input.createdAt.getTime(), input.verifiedAt?.getTime() ?? null);
      return { outcome: 'created' as const, recipient: toRecipient(get.get(orgId, input.id) as Row) };
    },
  );
  const claim = db.transaction((orgId: string, email: string, now: Date, policy) => {
    const row = counter.get(orgId, email) as CounterRow | undefined;
    const current: MailCounter | null = row
      ? {
          windowStart: new Date(row.window_start),
          sentInWindow: row.sent_in_window,
          lastSentAt: new Date(row.last_sent_at),
        }
      : null;
    const decision = nextMailCounter(current, now, policy);
    if ('retryAt' in decision) return { allowed: false as const, retryAt: decision.retryAt };
    const n = decision.next;
    putCounter.run(orgId, email, n.windowStart.getTime(), n.sentInWindow, n.lastSentAt.getTime());
    return { allowed: true as const };
  });
  const purge = db.transaction((orgId: string) => {
    for (const statement of purgeStatements) statement.run(orgId);
  });

  return {
    list: async (scope) => (list.all(scope.orgId) as Row[]).map(toRecipient),
    async get(scope, id) {
      const row = get.get(scope.orgId, id) as Row | undefined;
      return row ? toRecipient(row) : null;
    },
    add: async (scope, input, options) => add(scope.orgId, input, options.limit),
    async markVerified(scope, input) {
      const email = input.email.toLowerCase();
      verify.run(input.at.getTime(), scope.orgId, input.id, email);
      const row = get.get(scope.orgId, input.id) as Row | undefined;
      return row && row.email === email ? toRecipient(row) : null;
    },
    remove: async (scope, id) => remove.run(scope.orgId, id).changes > 0,
    listVerified: async (orgId) => verified.all(orgId) as string[],
    claimVerificationMail: async (scope, email, now, policy) => claim(scope.orgId, email.toLowerCase(), now, policy),
    setOrgName: async (orgId, name) => void putName.run(orgId, name),
    getOrgName: async (orgId) => (getName.get(orgId) as string | undefined) ?? null,
    purgeOrganization: async (scope) => purge(scope.orgId),
    async close() {},
  };
}
