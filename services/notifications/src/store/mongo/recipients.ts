import { isDuplicateKeyError, type MongoConnection } from '@formgate/store/mongo';
import { nextMailCounter, type RecipientStore } from '../recipients.ts';
import type { MailClaim, MailCounter, MailPolicy, Recipient } from '../records.ts';

interface RecipientDoc {
  _id: string;
  orgId: string;
  email: string;
  createdAt: Date;
  verifiedAt: Date | null;
}
/** The counter after the `seq`-th claim; only the latest is kept. */
interface CounterDoc extends MailCounter {
  /** `JSON [orgId, email, seq]`: two claims built on the same counter collide here, and one fails. */
  _id: string;
  orgId: string;
  email: string;
  seq: number;
}
interface NameDoc {
  _id: string;
  name: string;
}

const toRecipient = (d: RecipientDoc): Recipient => ({
  id: d._id,
  orgId: d.orgId,
  email: d.email,
  verified: d.verifiedAt !== null,
  createdAt: d.createdAt,
  verifiedAt: d.verifiedAt,
});

/**
 * `RecipientStore` on MongoDB 7+ or FerretDB 1.24. Uniqueness is a unique index on (orgId, email). A mail claim
 * inserts the next counter under a key derived from the one it read (FerretDB's conditional updates are not atomic,
 * its inserts are), so of concurrent claims on the same counter one passes.
 */
/** Its indexes are created by the notifications migrations (`store/mongo/migrations`). */
export function createMongoRecipientStore(conn: MongoConnection): RecipientStore {
  const db = conn.db;
  if (!db) throw new Error('createMongoRecipientStore: the connection is not open');
  const emails = db.collection<RecipientDoc>('notification_emails');
  const counters = db.collection<CounterDoc>('notification_email_mails');
  const names = db.collection<NameDoc>('notification_org_names');

  // Index `org_email`.
  const byEmail = (orgId: string, email: string) => emails.findOne({ orgId, email });

  async function claim(orgId: string, email: string, now: Date, policy: MailPolicy): Promise<MailClaim> {
    // Index `org_email_seq`, here and for the older counters' deletion below.
    const [latest] = await counters.find({ orgId, email }).sort({ seq: -1 }).limit(1).toArray();
    const decision = nextMailCounter(latest ?? null, now, policy);
    if ('retryAt' in decision) return { allowed: false, retryAt: decision.retryAt };
    const seq = (latest?.seq ?? 0) + 1;
    try {
      await counters.insertOne({ _id: JSON.stringify([orgId, email, seq]), orgId, email, seq, ...decision.next });
    } catch (err) {
      if (isDuplicateKeyError(err)) return { allowed: false, retryAt: new Date(now.getTime() + policy.minIntervalMs) };
      throw err;
    }
    await counters.deleteMany({ orgId, email, seq: { $lt: seq } });
    return { allowed: true };
  }

  return {
    // Index `org_created` (by its prefix); the sort with its `_id` tie-break is in memory, over a few addresses.
    list: async (scope) =>
      (await emails.find({ orgId: scope.orgId }).sort({ createdAt: 1, _id: 1 }).toArray()).map(toRecipient),
    async get(scope, id) {
      const doc = await emails.findOne({ _id: id, orgId: scope.orgId }); // by `_id`
      return doc ? toRecipient(doc) : null;
    },
    async add(scope, input, options) {
      const email = input.email.toLowerCase();
      const existing = await byEmail(scope.orgId, email);
      if (existing) return { outcome: 'exists', recipient: toRecipient(existing) };
      // Index `org_email` (by its prefix).
      if ((await emails.countDocuments({ orgId: scope.orgId })) >= options.limit) return { outcome: 'limit-reached' };
      const doc: RecipientDoc = {
        _id: input.id,
        orgId: scope.orgId,
        email,
        createdAt: input.createdAt,
        verifiedAt: input.verifiedAt,
      };
      try {
        await emails.insertOne(doc);
        return { outcome: 'created', recipient: toRecipient(doc) };
      } catch (err) {
        const raced = isDuplicateKeyError(err) ? await byEmail(scope.orgId, email) : null;
        if (raced) return { outcome: 'exists', recipient: toRecipient(raced) };
        throw err;
      }
    },
    async markVerified(scope, input) {
      // The update and the read by `_id`; the organization and the address are checked on the document.
      const filter = { _id: input.id, orgId: scope.orgId, email: input.email.toLowerCase() };
      await emails.updateOne({ ...filter, verifiedAt: null }, { $set: { verifiedAt: input.at } });
      const doc = await emails.findOne(filter);
      return doc ? toRecipient(doc) : null;
    },
    // By `_id`.
    remove: async (scope, id) => (await emails.deleteOne({ _id: id, orgId: scope.orgId })).deletedCount === 1,
    // Index `org_email` (by its prefix); `verifiedAt` is checked on the organization's few addresses.
    listVerified: async (orgId) =>
      (await emails.find({ orgId, verifiedAt: { $ne: null } }, { projection: { email: 1 } }).toArray()).map(
        (d) => d.email,
      ),
    claimVerificationMail: (scope, email, now, policy) => claim(scope.orgId, email.toLowerCase(), now, policy),
    async setOrgName(orgId, name) {
      // By `_id`, as `getOrgName`.
      await names.updateOne({ _id: orgId }, { $set: { name } }, { upsert: true });
    },
    getOrgName: async (orgId) => (await names.findOne({ _id: orgId }))?.name ?? null,
    async purgeOrganization(scope) {
      await emails.deleteMany({ orgId: scope.orgId }); // index `org_email` (by its prefix)
      await counters.deleteMany({ orgId: scope.orgId }); // index `org_email_seq` (by its prefix)
      await names.deleteOne({ _id: scope.orgId });
    },
    async close() {},
  };
}
