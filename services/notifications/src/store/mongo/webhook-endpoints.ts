import { insertOnce, isDuplicateKeyError, type MongoConnection, type MongoDb } from '@formgate/store/mongo';
import type { OrgScope, WebhookEndpoint, WebhookEndpointChanges } from '../records.ts';
import { definedChanges, disablingKey, type WebhookEndpointStore, withDisabling } from '../webhook-endpoints.ts';

/**
 * An endpoint as created (revision 0), holding one of its form's numbered slots. Written once, by its creation;
 * removed with the endpoint. `endpointId` (= `_id`) lets one query read it with its revisions and disablings.
 */
type EndpointDoc = Omit<WebhookEndpoint, 'id'> & { _id: string; slot: number; endpointId: string; record?: undefined };

/** What a record carries besides its own fields: its endpoint's keys, and a `slot` that is its `_id` (see below). */
interface RecordBase {
  _id: string;
  endpointId: string;
  orgId: string;
  formId: string;
  slot: string;
}

/**
 * The whole endpoint after a person's change: `_id` = `${endpointId}@${revision}`, inserted once, never updated;
 * `storedAt` the inserting process's clock (ms), for `REVISION_KEPT_MS`.
 */
type RevisionDoc = RecordBase & Omit<WebhookEndpoint, 'id'> & { record: 'revision'; storedAt: number };

/**
 * How long an older revision is kept after a newer one: while it exists, its `_id` stays taken, so a change based
 * on the revision before it still conflicts. An `update` gives up (`'conflict'`) when more than `UPDATE_WINDOW_MS`
 * passed between its read and its insert, so no change can be based on a revision deleted meanwhile (the margin
 * covers the instances' clock skew).
 */
export const REVISION_KEPT_MS = 60_000;
const UPDATE_WINDOW_MS = 10_000;

/** The service's disabling of the endpoint as enabled at `enabledAt`: `_id` = `disablingKey`, inserted once. */
interface DisablingDoc extends RecordBase {
  record: 'disabling';
  enabledAt: string;
  reason: string;
  at: string;
}

type Doc = EndpointDoc | RevisionDoc | DisablingDoc;

/**
 * The endpoint `id` in `found` (any order, any endpoints of the org): as its people's changes stored it (its highest
 * revision) and as read (with the service's disabling for its `enabledAt`); null when it has no `EndpointDoc`.
 */
const endpointIn = (found: Doc[], id: string) => {
  const base = found.find((d): d is EndpointDoc => d.record === undefined && d._id === id);
  if (!base) return null;
  let latest: EndpointDoc | RevisionDoc = base;
  for (const d of found) {
    if (d.record === 'revision' && d.endpointId === id && d.revision > (latest.revision ?? 0)) latest = d;
  }
  const {
    _id: _i,
    slot: _s,
    endpointId: _e,
    record: _r,
    orgId: _o,
    formId: _f,
    storedAt: _t,
    ...state
  } = latest as RevisionDoc;
  const stored: WebhookEndpoint = { id, orgId: base.orgId, formId: base.formId, ...state };
  const key = disablingKey(id, stored.enabledAt);
  const disabling = found.find((d): d is DisablingDoc => d.record === 'disabling' && d._id === key);
  return { stored, read: withDisabling(stored, disabling && { reason: disabling.reason, at: disabling.at }) };
};

/** The endpoints' collection, typed per kind of record, and the notices'. */
function collections(db: MongoDb) {
  return {
    docs: db.collection<Doc>('webhook_endpoints'),
    endpoints: db.collection<EndpointDoc>('webhook_endpoints'),
    revisions: db.collection<RevisionDoc>('webhook_endpoints'),
    disablings: db.collection<DisablingDoc>('webhook_endpoints'),
    notices: db.collection<{ _id: string }>('webhook_notices'),
  };
}

type Collections = ReturnType<typeof collections>;

const load = async (c: Collections, orgId: string, id: string) => {
  // Index `endpoint_id`.
  const found = await c.docs.find({ endpointId: id, orgId }).toArray();
  return endpointIn(found, id);
};
const get = async (c: Collections, orgId: string, id: string) => (await load(c, orgId, id))?.read ?? null;

/** A person's change: a new revision based on `basedOn`'s, inserted once (a concurrent one is a conflict). */
async function update(
  c: Collections,
  scope: OrgScope,
  id: string,
  changes: WebhookEndpointChanges,
  basedOn: { revision: number },
): Promise<WebhookEndpoint | 'conflict' | null> {
  const { revisions, disablings } = c;
  const readAt = Date.now();
  const current = await load(c, scope.orgId, id);
  if (!current) return null;
  if ((current.stored.revision ?? 0) !== basedOn.revision) return 'conflict';
  const { id: _id, orgId, formId, ...stored } = current.stored;
  const revision = basedOn.revision + 1;
  const key = `${id}@${revision}`;
  if (Date.now() - readAt > UPDATE_WINDOW_MS) return 'conflict';
  const inserted = await insertOnce(
    revisions.insertOne({
      ...stored,
      ...definedChanges(changes),
      revision,
      _id: key,
      record: 'revision',
      endpointId: id,
      orgId,
      formId,
      slot: key,
      storedAt: Date.now(),
    }),
  );
  if (!inserted) return 'conflict';
  if (changes.enabledAt !== undefined) {
    // Re-enabled: the disablings of the times before no longer apply (a late one left over is never read). Index
    // `endpoint_id`.
    await disablings.deleteMany({
      endpointId: id,
      orgId,
      record: 'disabling',
      enabledAt: { $ne: changes.enabledAt },
    });
  }
  // Index `endpoint_id`.
  await revisions.deleteMany({
    endpointId: id,
    orgId,
    record: 'revision',
    revision: { $lt: revision },
    storedAt: { $lt: Date.now() - REVISION_KEPT_MS },
  });
  return get(c, orgId, id);
}

/**
 * `WebhookEndpointStore` on MongoDB 7+ or FerretDB 1.24 with one writer per document (docs/notifications.md, "How a
 * disabling is stored"): nothing here is updated . FerretDB 1.24 applies an
 * update by reading the document, applying the operators in its own process and writing the whole document back by
 * `_id`, with no compare-and-swap, so the service disabling an endpoint could put back the URL, events or secret a
 * person had just changed, and two people's changes could lose each other's fields. Instead, in `webhook_endpoints`:
 *
 * - the endpoint as created (`EndpointDoc`): the per-form limit is a unique index on (formId, slot); creating takes
 *   the first free slot by a unique insert, and a duplicate (another instance took it) tries the next;
 * - each person's change is a new `RevisionDoc` with the whole endpoint, its `_id` the endpoint's and the revision:
 *   two changes based on one revision insert the same `_id`, one wins, the other is a `'conflict'`. Revisions
 *   older than the new one and than `REVISION_KEPT_MS` are deleted after the insert (the highest revision is the
 *   endpoint; a leftover is harmless);
 * - the service's disablings (`DisablingDoc`), one per endpoint and `enabledAt`.
 *
 * The records share the endpoints' collection so that every read is one query: `listByForm` is `{formId, orgId}`
 * and `get` is `{endpointId, orgId}` for every kind. A record's `slot` is its `_id`: a string is never one of the
 * numbered slots, and unique as the index wants.
 *
 * Its indexes are created by the notifications migrations (`store/mongo/migrations`).
 */
export function createMongoWebhookEndpointStore(conn: MongoConnection): WebhookEndpointStore {
  const db = conn.db;
  if (!db) throw new Error('createMongoWebhookEndpointStore: the connection is not open');
  const c = collections(db);
  const { docs, endpoints, disablings, notices } = c;
  return {
    async create(endpoint, { limit }) {
      const { id, ...rest } = endpoint;
      for (;;) {
        // Index `form_slot` (by its prefix); the endpoint is looked for by `_id` after a duplicate.
        const taken = new Set(
          (await docs.find({ formId: endpoint.formId }, { projection: { slot: 1 } }).toArray()).map((d) => d.slot),
        );
        const slot = Array.from({ length: limit }, (_, i) => i).find((i) => !taken.has(i));
        if (slot === undefined) return 'limit-reached';
        try {
          await endpoints.insertOne({ _id: id, endpointId: id, ...rest, slot });
          return 'created';
        } catch (err) {
          if (!isDuplicateKeyError(err)) throw err;
          if (await endpoints.findOne({ _id: id })) return 'created';
        }
      }
    },
    get: (scope, id) => get(c, scope.orgId, id),
    async listByForm(scope, formId) {
      // Index `form_slot` (by its prefix).
      const found = await docs.find({ formId, orgId: scope.orgId }).toArray();
      return found
        .filter((d): d is EndpointDoc => d.record === undefined)
        .map((d) => endpointIn(found, d._id)?.read as WebhookEndpoint)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },
    update: (scope, id, changes, basedOn) => update(c, scope, id, changes, basedOn),
    async disable(endpoint, { reason, at }) {
      const _id = disablingKey(endpoint.id, endpoint.enabledAt);
      const { orgId, formId, enabledAt } = endpoint;
      return insertOnce(
        disablings.insertOne({
          _id,
          record: 'disabling',
          endpointId: endpoint.id,
          orgId,
          formId,
          slot: _id,
          enabledAt,
          reason,
          at,
        }),
      );
    },
    async remove(scope, id) {
      // By `_id`, then the records by index `endpoint_id`.
      const removed = await endpoints.deleteOne({ _id: id, orgId: scope.orgId, record: { $exists: false } });
      if (removed.deletedCount !== 1) return false;
      // A record left behind (a crash here, or a late one) is never read: no endpoint has its id.
      await docs.deleteMany({ endpointId: id, orgId: scope.orgId, record: { $exists: true } });
      return true;
    },
    claimNotice: (key) => insertOnce(notices.insertOne({ _id: key })),
  };
}
