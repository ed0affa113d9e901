import { AppError } from '@formgate/kit';
import { isDuplicateKeyError, type MongoDb } from '@formgate/store/mongo';
import { chainAuditEntry } from '../audit-chain.ts';
import type { AuditStore } from '../audit-store.ts';
import type { AuditEntry, AuditFilter } from '../records.ts';

interface AuditDoc extends Omit<AuditEntry, 'id'> {
  _id: string;
  orgId: string;
}

const AUDIT_PROJECTION = {
  _id: 1,
  type: 1,
  actor: 1,
  occurredAt: 1,
  data: 1,
  seq: 1,
  prevHash: 1,
  hash: 1,
} as const;
const NEWEST_FIRST = { occurredAt: -1, _id: -1 } as const;

const toEntry = ({ _id, type, actor, occurredAt, data, seq, prevHash, hash }: AuditDoc): AuditEntry => ({
  id: _id,
  type,
  actor: actor ? { userId: actor.userId, email: actor.email } : null,
  occurredAt,
  data,
  seq,
  prevHash,
  hash,
});

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function filterQuery(filter: AuditFilter | undefined): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  if (filter?.types?.length) query.type = { $in: filter.types };
  if (filter?.actorEmail) query['actor.email'] = { $regex: `^${escapeRegex(filter.actorEmail)}$`, $options: 'i' };
  if (filter?.from || filter?.to)
    query.occurredAt = { ...(filter.from ? { $gte: filter.from } : {}), ...(filter.to ? { $lt: filter.to } : {}) };
  return query;
}

/**
 * `AuditStore` on MongoDB 7+ or FerretDB 1.24: one document per entry in `audit_log` (`_id` = the event's id). An
 * append reads the chain's head and inserts the next entry; the unique index `org_chain` (orgId, seq) refuses a
 * second entry at the same place, so two appends racing never fork the chain: the loser answers
 * `ORG_AUDIT_CONTENDED` (retryable) unless its entry is there already.
 */
export function createMongoAuditStore(db: MongoDb): AuditStore {
  const audit = db.collection<AuditDoc>('audit_log');
  const exists = async (id: string) => (await audit.findOne({ _id: id }, { projection: { _id: 1 } })) !== null;
  return {
    async appendAudit(scope, entry) {
      // Index org_chain. A redelivered entry is found by its duplicate `_id` below.
      const head = await audit
        .find({ orgId: scope.orgId }, { projection: { seq: 1, hash: 1 } })
        .sort({ seq: -1 })
        .limit(1)
        .next();
      const { id, ...chained } = chainAuditEntry(scope, entry, head ?? undefined);
      try {
        await audit.insertOne({ _id: id, orgId: scope.orgId, ...chained });
        return true;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        if (await exists(id)) return false;
        throw new AppError('ORG_AUDIT_CONTENDED', undefined, { cause: err });
      }
    },
    async listAudit(scope, { limit, after, filter }) {
      if (limit <= 0) return [];
      const keyset = after
        ? { $or: [{ occurredAt: { $lt: after.occurredAt } }, { occurredAt: after.occurredAt, _id: { $lt: after.id } }] }
        : {};
      // Index org_newest (FerretDB 1.24 pushes down the orgId equality; the keyset, filter and sort are its own).
      const docs = await audit
        .find({ orgId: scope.orgId, ...keyset, ...filterQuery(filter) }, { projection: AUDIT_PROJECTION })
        .sort(NEWEST_FIRST)
        .limit(limit)
        .toArray();
      return docs.map(toEntry);
    },
    async readChain(scope, { afterSeq, limit }) {
      if (limit <= 0) return [];
      // Index org_chain.
      const docs = await audit
        .find({ orgId: scope.orgId, seq: { $gt: afterSeq } }, { projection: AUDIT_PROJECTION })
        .sort({ seq: 1 })
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
