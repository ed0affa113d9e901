import { insertOnce, type MongoDb } from '@formgate/store/mongo';
import type { AuditStore } from '../audit-store.ts';
import type { AuditEntry } from '../records.ts';

interface AuditDoc extends Omit<AuditEntry, 'id'> {
  _id: string;
  orgId: string;
}

const AUDIT_PROJECTION = { _id: 1, type: 1, actor: 1, occurredAt: 1, data: 1 } as const;
const NEWEST_FIRST = { occurredAt: -1, _id: -1 } as const;

const toEntry = ({ _id, type, actor, occurredAt, data }: AuditDoc): AuditEntry => ({
  id: _id,
  type,
  actor: actor ? { userId: actor.userId, email: actor.email } : null,
  occurredAt,
  data,
});

/** `AuditStore` on MongoDB 7+ or FerretDB 1.24: one document per entry in `audit_log` (`_id` = the event's id). */
export function createMongoAuditStore(db: MongoDb): AuditStore {
  const audit = db.collection<AuditDoc>('audit_log');
  return {
    appendAudit: (scope, { id, ...entry }) => insertOnce(audit.insertOne({ _id: id, orgId: scope.orgId, ...entry })),
    async listAudit(scope, { limit, after }) {
      if (limit <= 0) return [];
      const keyset = after
        ? { $or: [{ occurredAt: { $lt: after.occurredAt } }, { occurredAt: after.occurredAt, _id: { $lt: after.id } }] }
        : {};
      // Index org_newest (FerretDB 1.24 pushes down the orgId equality; the keyset and the sort are its own).
      const docs = await audit
        .find({ orgId: scope.orgId, ...keyset }, { projection: AUDIT_PROJECTION })
        .sort(NEWEST_FIRST)
        .limit(limit)
        .toArray();
      return docs.map(toEntry);
    },
    async purge(scope) {
      await audit.deleteMany({ orgId: scope.orgId }); // index org_newest (by its prefix)
    },
    async close() {},
  };
}
