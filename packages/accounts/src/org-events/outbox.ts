import type { EventPublisher } from '@formgate/bus';
import { encodeEvent, type OrganizationEvent, type SubscriptionChanged, Topics } from '@formgate/contracts';
import { type Clock, createRelayLoop, type Ids, type Logger } from '@formgate/kit';
import { createRelayLease, type RelayLease } from './lease.ts';
import type { OrgEventData, OrgEventRecorder } from './recorder.ts';
import { OUTBOX_MODEL as MODEL, OUTBOX_TOPICS, type OutboxAdapter, type OutboxRow } from './schema.ts';

export interface OrgEventOutboxDeps {
  clock: Clock;
  ids: Ids;
  logger: Logger;
  /** Between relay passes (default 500 ms); each pass renews the lease. */
  pollMs?: number;
  /** Relay lease (default 15 s) and the part of it the holder does not use (default 5 s), see `createRelayLease`. */
  leaseMs?: number;
  leaseMarginMs?: number;
  /** How old an unconfirmed deletion intent must be before the relay settles it (default 30 s). */
  intentGraceMs?: number;
  /** Rows per publish (default 200). */
  batchSize?: number;
  /** This relay's lease holder id (default: a new id). */
  holder?: string;
}

const isIntent = (r: OutboxRow) => r.state === 'intent';

/**
 * The accounts event outbox: hooks write each event to better-auth's database right after the change it
 * describes (a deletion also right before it, as an intent); a relay publishes pending rows to
 * `orgs.organization` (keyed by orgId, in order) and deletes them once the log acknowledged. Of several gateways
 * only the holder of the relay lease publishes, so one organization's events reach the log in order. The stripe
 * plugin's subscription changes go the same way to `billing.subscription` (`recordSubscription`).
 */
export function createOrgEventOutbox(deps: OrgEventOutboxDeps) {
  const batchSize = deps.batchSize ?? 200;
  const graceMs = deps.intentGraceMs ?? 30_000;
  let adapter: OutboxAdapter | undefined;
  let bus: EventPublisher | undefined;
  let lease: RelayLease | undefined;
  let stopped = false;
  let holding = false;
  const holder = deps.holder ?? deps.ids.next();
  const now = () => deps.clock.now().getTime();
  const db = () => {
    if (!adapter) throw new Error('organization event outbox used before start');
    return adapter;
  };

  /**
   * Intents older than the grace period whose confirmation never came (the gateway died between the deletion and
   * its after-hook, or the deletion failed): published if the organization is gone, dropped if it is still there.
   */
  const settleIntents = async (a: OutboxAdapter, rows: OutboxRow[]) => {
    const publish: OutboxRow[] = [];
    const drop: OutboxRow[] = [];
    for (const r of rows.filter((x) => isIntent(x) && now() - x.recordedAt >= graceMs)) {
      const org = await a.findOne({ model: 'organization', where: [{ field: 'id', value: r.orgId }] });
      (org ? drop : publish).push(r);
    }
    return { publish, drop };
  };

  /** One batch; resolves to whether more may be pending. */
  const relayBatch = async (a: OutboxAdapter, b: EventPublisher, l: RelayLease): Promise<boolean> => {
    const held = await l.hold();
    if (held !== holding) deps.logger.info({ holder }, `organization event relay lease ${held ? 'taken' : 'lost'}`);
    holding = held;
    if (!held) return false;
    const rows = await a.findMany<OutboxRow>({
      model: MODEL,
      limit: batchSize,
      sortBy: { field: 'eventId', direction: 'asc' },
    });
    const ready = rows.filter((r) => !isIntent(r));
    // Intents are settled only when every pending row is in view, and published after all of them: an
    // organization's earlier events must not follow its deletion.
    const tail = rows.length < batchSize || ready.length === 0;
    const settled = tail ? await settleIntents(a, rows) : { publish: [], drop: [] };
    const out = [...ready, ...settled.publish];
    if (out.length > 0) {
      if (!l.valid()) return false;
      for (const topic of OUTBOX_TOPICS) {
        const batch = out.filter((r) => r.topic === topic);
        if (batch.length > 0)
          await b.publish(
            topic,
            batch.map((r) => ({ key: r.orgId, value: r.payload })),
          );
      }
      if (!l.valid()) deps.logger.warn('organization event relay lease lapsed during a publish; expect duplicates');
    }
    // Published rows go even if the lease lapsed meanwhile: they are in the log, and the fewer rows the next
    // holder finds, the fewer duplicates it publishes.
    const done = [...out, ...settled.drop].map((r) => r.id);
    if (done.length > 0) await a.deleteMany({ model: MODEL, where: [{ field: 'id', operator: 'in', value: done }] });
    return rows.length === batchSize && done.length > 0;
  };

  const loop = createRelayLoop({
    pass: async () => (adapter && bus && lease ? relayBatch(adapter, bus, lease) : false),
    intervalMs: deps.pollMs ?? 500,
    onError: (err) => deps.logger.warn({ err }, 'organization event relay will retry'),
  });
  // After stop(), a request still finishing may record an event: it stays in the outbox for the next holder, and
  // this relay neither takes the lease back nor touches a database that is about to close.
  const nudge = () =>
    queueMicrotask(() => {
      if (!stopped) void loop.kick();
    });

  const write = async (a: OutboxAdapter, row: Pick<OutboxRow, 'orgId' | 'payload' | 'state' | 'topic'>) => {
    await a.create({ model: MODEL, data: { ...row, eventId: deps.ids.next(), recordedAt: now() } });
  };
  const encode = (type: OrganizationEvent['type'], data: OrganizationEvent['data']) => {
    const event = { id: deps.ids.next(), type, version: 1, occurredAt: deps.clock.now().toISOString(), data };
    return encodeEvent(Topics.orgsOrganization, event as OrganizationEvent);
  };

  /** Confirms the organization's pending deletion intents: each becomes ready, sorted after everything before. */
  const confirmDeletion = async (a: OutboxAdapter, orgId: string): Promise<boolean> => {
    const intents = await a.findMany<OutboxRow>({
      model: MODEL,
      where: [
        { field: 'orgId', value: orgId },
        { field: 'state', value: 'intent' },
      ],
    });
    // A new row, then the intent goes: never an update, which FerretDB does not make conditional. A crash in
    // between leaves both, and the intent is settled later as a duplicate with the same event id.
    for (const intent of intents)
      await write(a, { orgId, payload: intent.payload, state: 'ready', topic: intent.topic });
    if (intents.length > 0)
      await a.deleteMany({ model: MODEL, where: [{ field: 'id', operator: 'in', value: intents.map((i) => i.id) }] });
    return intents.length > 0;
  };

  const record: OrgEventRecorder = Object.assign(
    async <T extends OrganizationEvent['type']>(type: T, data: OrgEventData<T>) => {
      const a = db();
      if (type !== 'organization.deleted' || !(await confirmDeletion(a, data.orgId)))
        await write(a, {
          orgId: data.orgId,
          payload: encode(type, data),
          state: 'ready',
          topic: Topics.orgsOrganization,
        });
      nudge();
    },
    {
      async deletionIntent(data: OrgEventData<'organization.deleted'>) {
        const payload = encode('organization.deleted', data);
        await write(db(), { orgId: data.orgId, payload, state: 'intent', topic: Topics.orgsOrganization });
      },
    },
  );

  /**
   * Records one `subscription.changed` for `billing.subscription` with the given envelope id (derived from the Stripe
   * event's, so recording a redelivered Stripe event again publishes the same id, which consumers deduplicate).
   */
  const recordSubscription = async (id: string, data: SubscriptionChanged['data']) => {
    const event = {
      id,
      type: 'subscription.changed' as const,
      version: 1 as const,
      occurredAt: deps.clock.now().toISOString(),
      data,
    };
    const payload = encodeEvent(Topics.billingSubscription, event);
    await write(db(), { orgId: data.orgId, payload, state: 'ready', topic: Topics.billingSubscription });
    // And its entry in the organization's audit log.
    await write(db(), {
      orgId: data.orgId,
      payload: encode('plan.changed', {
        orgId: data.orgId,
        actor: null,
        plan: data.planId,
        status: data.status ?? 'none',
        source: data.source ?? 'stripe',
      }),
      state: 'ready',
      topic: Topics.orgsOrganization,
    });
    nudge();
  };

  return {
    record,
    recordSubscription,
    /** Runs a relay pass now (or joins the one running). */
    relay: loop.kick,
    start(a: OutboxAdapter, b: EventPublisher) {
      adapter = a;
      bus = b;
      lease = createRelayLease(a, {
        holder,
        clock: deps.clock,
        leaseMs: deps.leaseMs ?? 15_000,
        marginMs: deps.leaseMarginMs ?? 5_000,
      });
      void loop.start();
    },
    /** Publishes what is pending now (if this relay holds the lease), then stops polling and releases the lease. */
    async stop() {
      stopped = true;
      await loop.stop();
      await loop.flush();
      await lease?.release().catch((err: unknown) => deps.logger.warn({ err }, 'relay lease not released'));
    },
  };
}
