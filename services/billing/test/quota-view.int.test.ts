import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { BusMessage, Subscription } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { type BillingUsageDto, decodeEvent, PlansFileSchema, Topics } from '@formgate/contracts';
import {
  closeServer,
  createHttpServer,
  createIdentityCodec,
  createLogger,
  IDENTITY_HEADER,
  listen,
  type Service,
} from '@formgate/kit';
import { eventually } from '@formgate/kit/testing';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBillingService } from '../src/create-service.ts';
import { received, released, releasedFromSpam, spamMarked, submissionData, subscriptionChanged } from './events.ts';
import { sqliteBillingDeps } from './sqlite-billing.ts';

const PLANS = PlansFileSchema.parse({
  defaultPlan: 'small',
  plans: [
    { id: 'small', name: 'Small', limits: { submissionsPerMonth: 3, emailsPerMonth: 2 } },
    { id: 'pro', name: 'Pro', limits: { submissionsPerMonth: 100, emailsPerMonth: 50 } },
  ],
});

/** The billing service alone on a real (SQLite) log, with a clock the test moves across a month's end. */
describe('billing: the quota view follows usage, held submissions, subscriptions and the period', () => {
  let now = new Date('2026-05-14T12:00:00.000Z');
  const bus = createSqliteBus(openSqlite(':memory:'));
  const codec = createIdentityCodec(randomBytes(32).toString('base64url'));
  const views: BusMessage[] = [];
  let service: Service;
  let server: Server;
  let follower: Subscription;
  let baseUrl: string;

  const viewsOf = (orgId: string) =>
    views.map((m) => decodeEvent(Topics.billingQuota, m.value).data).filter((q) => q.orgId === orgId);
  const latest = (orgId: string) => viewsOf(orgId).at(-1);
  const usage = async (orgId: string) => {
    const token = await codec.sign({ userId: 'u1', email: null, orgId, roles: ['member'], via: 'session' });
    const res = await fetch(`${baseUrl}/api/v1/billing/usage`, { headers: { [IDENTITY_HEADER]: token } });
    expect(res.status).toBe(200);
    return (await res.json()) as BillingUsageDto;
  };

  beforeAll(async () => {
    service = createBillingService({
      ...sqliteBillingDeps(openSqlite(':memory:'), PLANS),
      bus,
      clock: { now: () => now },
      logger: createLogger({ level: 'silent', name: 'billing' }),
      identity: codec,
      periodCheckMs: 20,
    });
    await service.start();
    follower = await bus.replay(Topics.billingQuota, (m) => void views.push(m));
    server = createHttpServer(service.app);
    baseUrl = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  });
  afterAll(async () => {
    await closeServer(server);
    await follower.stop();
    await service.stop();
    await bus.close();
  });

  it('holds, upgrades, ignores stale and replayed changes, counts a release once, and turns the period', async () => {
    const orgId = `org_${randomUUID()}`;
    const at = '2026-05-14T11:00:00.000Z';
    const counted = [1, 2, 3].map(() => submissionData(orgId, at));
    const held = [1, 2].map(() => submissionData(orgId, at, true));
    await bus.publish(
      Topics.ingestSubmission,
      [...counted, ...held, held[0]].map((d) => received(d as never)),
    );
    await eventually(() =>
      expect(latest(orgId)).toMatchObject({ submissionsUsed: 3, submissionsHeld: 2, overQuota: true, planId: 'small' }),
    );
    expect(await usage(orgId)).toEqual({
      period: '2026-05',
      plan: { id: 'small', name: 'Small' },
      subscription: null,
      submissions: { used: 3, max: 3, held: 2 },
      emails: { used: 0, max: 2, deferred: 0 },
      storage: { usedMb: 0, maxMb: null },
    });

    const upgrade = subscriptionChanged(orgId, '2026-05-14T11:30:00.000Z');
    await bus.publish(Topics.billingSubscription, [upgrade]);
    await eventually(() =>
      expect(latest(orgId)).toMatchObject({
        planId: 'pro',
        submissionsMax: 100,
        overQuota: false,
        subscriptionChangedAt: '2026-05-14T11:30:00.000Z',
      }),
    );
    // Older (a cancellation from before the upgrade, delivered late) and replayed: nothing changes.
    const stale = subscriptionChanged(orgId, '2026-05-14T11:29:59.000Z', { status: 'canceled' });
    const before = viewsOf(orgId).length;
    await bus.publish(Topics.billingSubscription, [stale, upgrade]);
    // The handler publishes the view after each batch, applied or not.
    await eventually(() => expect(viewsOf(orgId).length).toBeGreaterThan(before));
    expect(latest(orgId)).toMatchObject({ planId: 'pro', subscriptionChangedAt: '2026-05-14T11:30:00.000Z' });
    const [first, second] = held as [(typeof held)[0], (typeof held)[0]];
    // Forms releases: one twice, and one submission that was counted when received.
    await bus.publish(Topics.formsSubmission, [
      released(first, '2026-05-14T11:31:00.000Z'),
      released(first, '2026-05-14T11:31:01.000Z'),
      released(counted[0] as typeof first, '2026-05-14T11:31:02.000Z'),
    ]);
    await eventually(() => expect(latest(orgId)).toMatchObject({ submissionsUsed: 4, submissionsHeld: 1 }));
    expect(latest(orgId)).toMatchObject({ planId: 'pro', overQuota: false });
    const now1 = await usage(orgId);
    expect(now1.plan).toEqual({ id: 'pro', name: 'Pro' });
    expect(now1.subscription).toMatchObject({ status: 'active', interval: 'month', cancelAtPeriodEnd: false });
    expect(now1.submissions).toEqual({ used: 4, max: 100, held: 1 });

    // The turn of the month: the held organization's view of June, nothing used yet.
    now = new Date('2026-06-01T00:00:05.000Z');
    await eventually(() =>
      expect(latest(orgId)).toMatchObject({ period: '2026-06', submissionsUsed: 0, submissionsHeld: 1 }),
    );
    // Released in June, counted in June.
    await bus.publish(Topics.formsSubmission, [released(second, '2026-06-01T00:00:06.000Z')]);
    await eventually(() =>
      expect(latest(orgId)).toMatchObject({ period: '2026-06', submissionsUsed: 1, submissionsHeld: 0 }),
    );

    // Canceled (newer): back on the default plan.
    await bus.publish(Topics.billingSubscription, [
      subscriptionChanged(orgId, '2026-06-02T00:00:00.000Z', { status: 'canceled' }),
    ]);
    await eventually(() => expect(latest(orgId)).toMatchObject({ planId: 'small', submissionsMax: 3 }));
    expect((await usage(orgId)).subscription).toMatchObject({ status: 'canceled' });
    expect(
      viewsOf(orgId)
        .filter((v) => v.period === '2026-05')
        .map((v) => v.submissionsUsed),
    ).not.toContain(5);
  });

  it('bills a submission released from spam once, in the period of the mark; other marks bill nothing', async () => {
    const orgId = `org_${randomUUID()}`;
    now = new Date('2026-07-01T10:00:00.000Z');
    const spam = { ...submissionData(orgId, '2026-06-30T23:59:00.000Z'), spam: { isSpam: true, reasons: [] } };
    const clean = submissionData(orgId, '2026-07-01T09:00:00.000Z');
    await bus.publish(Topics.ingestSubmission, [received(spam as never), received(clean)]);
    await eventually(() => expect(latest(orgId)).toMatchObject({ period: '2026-07', submissionsUsed: 1 }));
    // Marks without the submission (a clean one marked spam and back): nothing.
    await bus.publish(Topics.formsSubmission, [
      spamMarked(clean, '2026-07-01T09:30:00.000Z', true),
      spamMarked(clean, '2026-07-01T09:31:00.000Z', false),
    ]);
    const release = releasedFromSpam(spam as never, '2026-07-01T10:00:00.000Z');
    await bus.publish(Topics.formsSubmission, [release]);
    await eventually(() => expect(latest(orgId)).toMatchObject({ period: '2026-07', submissionsUsed: 2 }));
    // Redelivered, a racing second release event, a later spam mark: still 2; June was never touched.
    await bus.publish(Topics.formsSubmission, [
      release,
      releasedFromSpam(spam as never, '2026-07-01T10:00:01.000Z'),
      spamMarked(spam as never, '2026-07-01T10:01:00.000Z', true),
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await usage(orgId)).submissions).toMatchObject({ used: 2 });
    expect(viewsOf(orgId).filter((v) => v.period === '2026-06' && v.submissionsUsed > 0)).toEqual([]);
  });
});
