import { isDuplicateKeyError, type MongoConnection } from '@formgate/store/mongo';
import { definedChanges, type WebhookEndpoint, type WebhookEndpointStore } from './webhook-endpoint-store.ts';

type EndpointDoc = Omit<WebhookEndpoint, 'id'> & { _id: string; slot: number };

const toEndpoint = ({ _id, slot: _slot, ...rest }: EndpointDoc): WebhookEndpoint => ({ id: _id, ...rest });

/**
 * `WebhookEndpointStore` on MongoDB 7+ or FerretDB 1.24. The per-form limit is a unique index on (formId, slot):
 * creating takes the first free slot by a unique insert, and a duplicate (another instance took it) tries the next,
 * so the limit holds without transactions.
 */
export async function createMongoWebhookEndpointStore(conn: MongoConnection): Promise<WebhookEndpointStore> {
  const db = conn.db;
  if (!db) throw new Error('createMongoWebhookEndpointStore: the connection is not open');
  const endpoints = db.collection<EndpointDoc>('webhook_endpoints');
  const notices = db.collection<{ _id: string }>('webhook_notices');
  await endpoints.createIndex({ formId: 1, slot: 1 }, { name: 'form_slot', unique: true });

  const get = async (orgId: string, id: string) => {
    const doc = await endpoints.findOne({ _id: id, orgId });
    return doc ? toEndpoint(doc) : null;
  };
  return {
    async create(endpoint, { limit }) {
      const { id, ...rest } = endpoint;
      for (;;) {
        const taken = new Set(
          (await endpoints.find({ formId: endpoint.formId }, { projection: { slot: 1 } }).toArray()).map((d) => d.slot),
        );
        const slot = Array.from({ length: limit }, (_, i) => i).find((i) => !taken.has(i));
        if (slot === undefined) return 'limit-reached';
        try {
          await endpoints.insertOne({ _id: id, ...rest, slot });
          return 'created';
        } catch (err) {
          if (!isDuplicateKeyError(err)) throw err;
          if (await endpoints.findOne({ _id: id })) return 'created';
        }
      }
    },
    get: (scope, id) => get(scope.orgId, id),
    async listByForm(scope, formId) {
      const docs = await endpoints.find({ formId, orgId: scope.orgId }).toArray();
      return docs.map(toEndpoint).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },
    async update(scope, id, changes) {
      const result = await endpoints.updateOne({ _id: id, orgId: scope.orgId }, { $set: definedChanges(changes) });
      return result.matchedCount === 0 ? null : get(scope.orgId, id);
    },
    async remove(scope, id) {
      return (await endpoints.deleteOne({ _id: id, orgId: scope.orgId })).deletedCount === 1;
    },
    async claimNotice(key) {
      try {
        await notices.insertOne({ _id: key });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
  };
}
