import type { MongoMigration } from '@formgate/store/mongo';
import { chainAuditEntry } from '../../audit-chain.ts';
import type { AuditEntry } from '../../records.ts';

type Doc = Omit<AuditEntry, 'id'> & { _id: string; orgId: string };

/**
 * The audit log becomes a hash chain (issue 32): each organization's entries get `seq`, `prevHash` and `hash`, in the
 * order the log showed them (`occurredAt`, `_id`), then the unique index `org_chain` (orgId, seq). Running it again
 * computes the same values.
 */
export const auditChain: MongoMigration = {
  version: 2,
  name: 'chain the audit log by hash',
  async up(db) {
    const audit = db.collection<Doc>('audit_log');
    for (const orgId of (await audit.distinct('orgId')) as string[]) {
      let head: { seq: number; hash: string } | undefined;
      for await (const doc of audit.find({ orgId }).sort({ occurredAt: 1, _id: 1 })) {
        const { _id, type, actor, occurredAt, data } = doc;
        const e = chainAuditEntry({ orgId }, { id: _id, type, actor, occurredAt, data }, head);
        await audit.updateOne({ _id }, { $set: { seq: e.seq, prevHash: e.prevHash, hash: e.hash } });
        head = e;
      }
    }
    await audit.createIndex({ orgId: 1, seq: 1 }, { name: 'org_chain', unique: true });
  },
};
