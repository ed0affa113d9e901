import { isDuplicateKeyError, type MongoConnection } from '@formgate/store/mongo';
import { type MailClaim, type MailCounter, nextMailCounter, type Recipient, type RecipientStore } from './recipient-store.ts';

interface RecipientDoc {
  _id: string;
  orgId: string;
  email: string;
  createdAt: Date;
  verifiedAt: Date | null;
}
interface CounterDoc extends MailCounter {
  /** `orgId` NUL `email`. */
  _id: string;
  orgId: string;
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
 * `RecipientStore` on MongoDB 7+ or FerretDB 1.24. Uniqueness is a unique index on (orgId, email); mail counters
 * change by compare-and-set on the values read, so of two concurrent claims at most one passes.
 */
export async function createMongoRecipientStore(conn: MongoConnection): Promise<RecipientStore> {
  const db = conn.db;
  if (!db) throw new Error('createMongoRecipientStore: the connection is not open');
  const emails = db.collection<RecipientDoc>('notification_emails');
  const counters = db.collection<CounterDoc>('notification_email_mails');
  const names = db.collection<NameDoc>('notification_org_names');
  await emails.createIndex({ orgId: 1, email: 1 }, { name: 'org_email', unique: true });
  await emails.createIndex({ orgId: 1, createdAt: 1 }, { name: 'org_created' });
  await counters.createIndex({ orgId: 1 }, { name: 'org' });

  const byEmail = (orgId: string, email: string) => emails.findOne({ orgId, email });

  async function claim(orgId: string, email: string, now: Date, policy: Parameters<typeof nextMailCounter>[2]) {
    const _id = `${orgId}\u0000${email}`;
    const doc = await counters.findOne({ _id });
    const decision = nextMailCounter(doc, now, policy);
    if ('retryAt' in decision) return { allowed: false, retryAt: decision.retryAt } satisfies MailClaim;
    const refused: MailClaim = { allowed: false, retryAt: new Date(now.getTime() + policy.minIntervalMs) };
    if (!doc) {
      try {
        await counters.insertOne({ _id, orgId, ...decision.next });
        return { allowed: true } satisfies MailClaim;
      } catch (err) {
        if (isDuplicateKeyError(err)) return refused;
        throw err;
      }
    }
    const swapped = await counters.updateOne(
      { _id, lastSentAt: doc.lastSentAt, sentInWindow: doc.sentInWindow, windowStart: doc.windowStart },
      { $set: decision.next },
    );
    return swapped.modifiedCount === 1 ? ({ allowed: true } satisfies MailClaim) : refused;
  }

  return {
    list: async (scope) =>
      (await emails.find({ orgId: scope.orgId }).sort({ createdAt: 1, _id: 1 }).toArray()).map(toRecipient),
    async get(scope, id) {
      const doc = await emails.findOne({ _id: id, orgId: scope.orgId });
      return doc ? toRecipient(doc) : null;
    },
    async add(scope, input, options) {
      const email = input.email.toLowerCase();
      const existing = await byEmail(scope.orgId, email);
      if (existing) return { outcome: 'exists', recipient: toRecipient(existing) };
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
      const filter = { _id: input.id, orgId: scope.orgId, email: input.email.toLowerCase() };
      await emails.updateOne({ ...filter, verifiedAt: null }, { $set: { verifiedAt: input.at } });
      const doc = await emails.findOne(filter);
      return doc ? toRecipient(doc) : null;
    },
    remove: async (scope, id) => (await emails.deleteOne({ _id: id, orgId: scope.orgId })).deletedCount === 1,
    listVerified: async (orgId) =>
      (await emails.find({ orgId, verifiedAt: { $ne: null } }, { projection: { email: 1 } }).toArray()).map(
        (d) => d.email,
      ),
    claimVerificationMail: (scope, email, now, policy) => claim(scope.orgId, email.toLowerCase(), now, policy),
    async setOrgName(orgId, name) {
      await names.updateOne({ _id: orgId }, { $set: { name } }, { upsert: true });
    },
    getOrgName: async (orgId) => (await names.findOne({ _id: orgId }))?.name ?? null,
    async purgeOrganization(scope) {
      await emails.deleteMany({ orgId: scope.orgId });
      await counters.deleteMany({ orgId: scope.orgId });
      await names.deleteOne({ _id: scope.orgId });
    },
    async close() {},
  };
}
