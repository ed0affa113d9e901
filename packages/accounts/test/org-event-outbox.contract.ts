import { randomBytes, randomUUID } from 'node:crypto';
import type { EventPublisher } from '@formgate/bus';
import { decodeEvent, type OrganizationEvent, type SubscriptionChanged, Topics } from '@formgate/contracts';
import { createLogger, systemIds } from '@formgate/kit';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { type BetterAuthOptions, betterAuth } from 'better-auth';
import { organization } from 'better-auth/plugins/organization';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import { orgEventHooks } from '../src/org-events/hooks.ts';
import { createRelayLease } from '../src/org-events/lease.ts';
import { createOrgEventOutbox } from '../src/org-events/outbox.ts';
import { OUTBOX_MODEL, type OutboxAdapter, type OutboxRow, orgEventOutboxPlugin } from '../src/org-events/schema.ts';

/** better-auth as the gateway configures its models (organization plugin, outbox and lease), on `database`. */
export function authOptionsFor(database: BetterAuthOptions['database']) {
  return {
    database,
    secret: randomBytes(32).toString('hex'),
    baseURL: 'http://127.0.0.1:3000',
    telemetry: { enabled: false },
    logger: { disabled: true },
    plugins: [organization(), orgEventOutboxPlugin()],
  } satisfies BetterAuthOptions;
}

export async function adapterOf(options: BetterAuthOptions): Promise<OutboxAdapter> {
  return (await betterAuth(options).$context).adapter as unknown as OutboxAdapter;
}

export interface OutboxTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  /** A fresh, migrated better-auth database and its adapter. */
  open: () => Promise<{ adapter: OutboxAdapter; close: () => Promise<void> }>;
}

const LEASE = 15_000;
const MARGIN = 5_000;
const GRACE = 30_000;
const logger = createLogger({ level: 'silent', name: 'outbox-test' });
const user = { id: 'user-1', email: 'owner@example.com' };
const memberAdded = (orgId: string, n: number) =>
  ({ orgId, actor: null, memberId: `m${n}`, userId: `u${n}`, role: 'member' }) as const;
const subscriptionChange = (orgId: string) => ({
  orgId,
  planId: 'pro',
  status: 'active' as const,
  interval: 'month' as const,
  periodStart: '2026-05-01T00:00:00.000Z',
  periodEnd: '2026-06-01T00:00:00.000Z',
  cancelAtPeriodEnd: false,
  trialEnd: null,
  stripeSubscriptionId: 'sub_1',
  changedAt: '2026-05-14T11:59:00.000Z',
});

interface Published {
  by: string;
  event: OrganizationEvent;
}

/** The outbox's guarantees (the relay lease and deletion intents) against one better-auth database adapter. */
export function runOrgEventOutboxContract(target: OutboxTarget) {
  describeContract(`organization event outbox: ${target.name}`, target.skip, (it) => {
    let db: Awaited<ReturnType<OutboxTarget['open']>>;
    let t: number;
    const clock = { now: () => new Date(t) };
    let log: Published[];
    let subscriptions: { by: string; key: string; event: SubscriptionChanged }[];
    let relays: ReturnType<typeof createOrgEventOutbox>[];

    beforeEach(async () => {
      db = await target.open();
      t = Date.parse('2026-05-14T12:00:00.000Z');
      log = [];
      subscriptions = [];
      relays = [];
    });
    afterEach(async () => {
      for (const r of relays) await r.stop();
      await db.close();
    });

    const publisher = (by: string, during?: () => Promise<void>): EventPublisher => ({
      async publish(topic, messages) {
        await during?.();
        for (const m of messages) {
          if (topic === Topics.billingSubscription) {
            subscriptions.push({ by, key: m.key, event: decodeEvent(Topics.billingSubscription, m.value) });
            continue;
          }
          const event = decodeEvent(Topics.orgsOrganization, m.value);
          expect([topic, m.key]).toEqual([Topics.orgsOrganization, event.data.orgId]);
          log.push({ by, event });
        }
      },
    });
    /** A relay that polls only when told to (`flush`). */
    const relay = async (holder: string, bus = publisher(holder), batchSize?: number) => {
      const r = createOrgEventOutbox({
        clock,
        ids: systemIds,
        logger,
        pollMs: 3_600_000,
        leaseMs: LEASE,
        leaseMarginMs: MARGIN,
        intentGraceMs: GRACE,
        holder,
        ...(batchSize ? { batchSize } : {}),
      });
      r.start(db.adapter, bus);
      relays.push(r);
      await r.relay();
      return r;
    };
    // The second pass starts after any pass a record's nudge had already started.
    const flush = async (...rs: { relay: () => Promise<unknown> }[]) => {
      for (const r of rs) await r.relay();
      for (const r of rs) await r.relay();
    };
    const pending = () => db.adapter.findMany<{ state?: string | null }>({ model: OUTBOX_MODEL });
    const newOrg = async () =>
      db.adapter.create<{ id: string; name: string; slug: string }>({
        model: 'organization',
        data: { name: 'Acme', slug: `acme-${randomUUID()}`, createdAt: new Date() },
      });
    const deleteOrg = (id: string) =>
      db.adapter.deleteMany({ model: 'organization', where: [{ field: 'id', value: id }] });
    const typesOf = (orgId: string) =>
      log.filter((p) => p.event.data.orgId === orgId).map((p) => `${p.event.type}:${p.by}`);

    it('lets only the lease holder relay, and keeps one organization’s events in order across gateways', async () => {
      const a = await relay('A');
      const b = await relay('B');
      const [x, y] = [randomUUID(), randomUUID()];
      await a.record('organization.created', { orgId: x, actor: null, name: 'X', slug: 'x' });
      for (let n = 0; n < 6; n++) await (n % 2 ? a : b).record('member.added', memberAdded(n % 3 ? x : y, n));
      await b.record('organization.deleted', { orgId: x, actor: null, name: 'X', slug: 'x' });
      await Promise.all([flush(a, b), flush(b, a)]);

      expect(log.map((p) => p.by)).toEqual(Array(8).fill('A'));
      expect(typesOf(x)).toEqual([
        'organization.created:A',
        'member.added:A',
        'member.added:A',
        'member.added:A',
        'member.added:A',
        'organization.deleted:A',
      ]);
      expect(
        log.filter((p) => p.event.data.orgId === x).map((p) => (p.event.data as { memberId?: string }).memberId),
      ).toEqual([undefined, 'm1', 'm2', 'm4', 'm5', undefined]);
      expect(await pending()).toEqual([]);
    });

    it('relays subscription changes to billing.subscription, keyed by orgId, with the id they were recorded with, and each as a plan change in the audit log', async () => {
      const a = await relay('A');
      const x = randomUUID();
      const change = subscriptionChange(x);
      await a.record('member.added', memberAdded(x, 1));
      await a.recordSubscription('stripe:evt_1', change);
      await a.recordSubscription('stripe:evt_2', { ...change, cancelAtPeriodEnd: true });
      await flush(a);
      expect(typesOf(x)).toEqual(['member.added:A', 'plan.changed:A', 'plan.changed:A']);
      expect(log.filter((p) => p.event.type === 'plan.changed')[0]?.event.data).toEqual({
        orgId: x,
        actor: null,
        plan: change.planId,
        status: change.status,
        source: 'stripe',
      });
      expect(subscriptions.map((p) => [p.key, p.event.id, p.event.data.cancelAtPeriodEnd])).toEqual([
        [x, 'stripe:evt_1', false],
        [x, 'stripe:evt_2', true],
      ]);
      expect(subscriptions[0]?.event.data).toEqual(change);
      expect(await pending()).toEqual([]);
    });

    it('writes every row with its topic, state and time', async () => {
      await relay('A');
      const b = await relay('B');
      const org = await newOrg();
      await b.record('member.added', memberAdded(org.id, 1));
      await orgEventHooks(b.record).beforeDeleteOrganization({ organization: org, user });
      await b.recordSubscription('stripe:evt_1', subscriptionChange(org.id));
      const rows = await db.adapter.findMany<OutboxRow>({
        model: OUTBOX_MODEL,
        sortBy: { field: 'eventId', direction: 'asc' },
      });
      expect(rows.map((r) => [r.topic, r.state, r.recordedAt])).toEqual([
        [Topics.orgsOrganization, 'ready', t],
        [Topics.orgsOrganization, 'intent', t],
        [Topics.billingSubscription, 'ready', t],
        [Topics.orgsOrganization, 'ready', t],
      ]);
    });

    it('hands the lease to another relay only after it expired, and the old holder stays out', async () => {
      const a = await relay('A');
      const b = await relay('B');
      const x = randomUUID();
      await b.record('member.added', memberAdded(x, 1));
      await flush(b, a);
      // A dies here: it is never asked to relay again until the end.
      await b.record('member.added', memberAdded(x, 2));
      t += LEASE;
      await flush(b);
      expect(log.map((p) => p.by)).toEqual(['A']);
      t += 1;
      await flush(b);
      await a.record('member.added', memberAdded(x, 3));
      await flush(a, b, a);
      expect(log.map((p) => `${(p.event.data as { memberId: string }).memberId}:${p.by}`)).toEqual([
        'm1:A',
        'm2:B',
        'm3:B',
      ]);
    });

    it('releases the lease on stop, so another relay takes over at once', async () => {
      const a = await relay('A');
      const b = await relay('B');
      const x = randomUUID();
      await a.stop();
      await b.record('member.added', memberAdded(x, 1));
      await flush(b);
      expect(typesOf(x)).toEqual(['member.added:B']);
    });

    it('gives an expired lease to exactly one of several relays racing for it', async () => {
      const leases = ['A', 'B', 'C', 'D', 'E'].map((holder) =>
        createRelayLease(db.adapter, { holder, clock, leaseMs: LEASE, marginMs: MARGIN }),
      );
      expect((await Promise.all(leases.map((l) => l.hold()))).filter(Boolean)).toHaveLength(1);
      t += LEASE + 1;
      expect((await Promise.all(leases.map((l) => l.hold()))).filter(Boolean)).toHaveLength(1);
      expect(leases.filter((l) => l.valid())).toHaveLength(1);
    });

    it('stops after a batch during which its lease was taken over: the rest comes from the new holder, in order', async () => {
      let b: Awaited<ReturnType<typeof relay>> | undefined;
      // A's first publish stalls past its lease; B takes over and relays everything meanwhile.
      let stalled = false;
      const stall = async () => {
        if (stalled || !b) return;
        stalled = true;
        t += LEASE + 1;
        await flush(b);
      };
      const a = await relay('A', publisher('A', stall), 2);
      // A's first pass (from start) must be over before anything is recorded, or it may read a partial batch.
      await a.relay();
      b = await relay('B', publisher('B'), 2);
      const x = randomUUID();
      for (let n = 1; n <= 5; n++) await b.record('member.added', memberAdded(x, n));
      await flush(a);

      const seen = log.map((p) => `${(p.event.data as { memberId: string }).memberId}:${p.by}`);
      // A's copies of the batch it had read land late: duplicates, which consumers drop by event id.
      expect(seen).toEqual(['m1:B', 'm2:B', 'm3:B', 'm4:B', 'm5:B', 'm1:A', 'm2:A']);
      expect(await pending()).toEqual([]);
    });

    describe('deletion intents', () => {
      it('publishes a deletion whose after-hook never ran once the grace period passed and the organization is gone, holding up no other organization', async () => {
        const a = await relay('A');
        const org = await newOrg();
        const other = randomUUID();
        await orgEventHooks(a.record).beforeDeleteOrganization({ organization: org, user });
        await deleteOrg(org.id);
        await a.record('member.added', memberAdded(other, 1));
        await flush(a);
        expect(log.map((p) => p.event.type)).toEqual(['member.added']);

        t += GRACE;
        await flush(a);
        await flush(a);
        expect(typesOf(org.id)).toEqual(['organization.deleted:A']);
        expect(log.at(-1)?.event.data).toEqual({
          orgId: org.id,
          actor: { userId: user.id, email: user.email },
          name: 'Acme',
          slug: org.slug,
        });
        expect(await pending()).toEqual([]);
      });

      for (const size of [2, 200]) {
        it(`publishes a settled deletion after every pending event of its organization (batches of ${size})`, async () => {
          const a = await relay('A', publisher('A'), size);
          const b = await relay('B');
          const org = await newOrg();
          // Recorded through B, which does not hold the lease: nothing is relayed until A's pass after the grace.
          await orgEventHooks(b.record).beforeDeleteOrganization({ organization: org, user });
          for (let n = 1; n <= 3; n++) await b.record('member.added', memberAdded(org.id, n));
          await deleteOrg(org.id);
          // B's own passes (its records nudged them) end before the clock jumps: one still running after it would
          // find A's lease expired and take it over.
          await flush(b);
          t += GRACE;
          await flush(a);
          expect(typesOf(org.id)).toEqual([
            'member.added:A',
            'member.added:A',
            'member.added:A',
            'organization.deleted:A',
          ]);
        });
      }

      it('drops the intent of a deletion that did not happen', async () => {
        const a = await relay('A');
        const org = await newOrg();
        await orgEventHooks(a.record).beforeDeleteOrganization({ organization: org, user });
        t += GRACE - 1;
        await flush(a);
        expect(await pending()).toHaveLength(1);
        t += 1;
        await flush(a);
        expect(log).toEqual([]);
        expect(await pending()).toEqual([]);
      });

      it('publishes a confirmed deletion once, at once, after the organization’s changes made before it', async () => {
        const a = await relay('A');
        const org = await newOrg();
        const hooks = orgEventHooks(a.record);
        await hooks.beforeDeleteOrganization({ organization: org, user });
        const [intent] = await db.adapter.findMany<{ payload: string }>({ model: OUTBOX_MODEL });
        await a.record('member.added', memberAdded(org.id, 1));
        await deleteOrg(org.id);
        await hooks.afterDeleteOrganization({ organization: org, user });
        await flush(a);
        t += GRACE;
        await flush(a);

        expect(typesOf(org.id)).toEqual(['member.added:A', 'organization.deleted:A']);
        expect(log.at(-1)?.event.id).toBe(JSON.parse(intent?.payload ?? '{}').id);
        expect(await pending()).toEqual([]);
      });

      it('still publishes a deletion confirmed after its intent was dropped (a deletion slower than the grace period)', async () => {
        const a = await relay('A');
        const org = await newOrg();
        const hooks = orgEventHooks(a.record);
        await hooks.beforeDeleteOrganization({ organization: org, user });
        t += GRACE;
        await flush(a);
        expect(await pending()).toEqual([]);
        await deleteOrg(org.id);
        await hooks.afterDeleteOrganization({ organization: org, user });
        await flush(a);
        expect(typesOf(org.id)).toEqual(['organization.deleted:A']);
      });
    });
  });
}
