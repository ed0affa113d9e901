import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBus } from '@formgate/bus';
import { type BillingUsageDto, encodeEvent, type PlansResponseDto, Topics } from '@formgate/contracts';
import { loadEmbeddedConfig, startEmbedded } from '@formgate/host-embedded';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionChanged as subscriptionChangedMessage } from '../../services/billing/test/events.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

const PLANS = {
  defaultPlan: 'small',
  plans: [
    { id: 'small', name: 'Small', limits: { submissionsPerMonth: 3, emailsPerMonth: 10 } },
    { id: 'pro', name: 'Pro', prices: { monthly: 1500 }, limits: { submissionsPerMonth: 1000, emailsPerMonth: 500 } },
  ],
};

const subscriptionChanged = (orgId: string, id: string, changedAt: string, status: 'active' | 'canceled') =>
  subscriptionChangedMessage(orgId, changedAt, { status }, id);

describe('embedded mode: plans in force, subscriptions and the usage they allow', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fg-plans-'));
  let app: TestApp;
  let bus: EventBus;
  beforeAll(async () => {
    writeFileSync(join(dir, 'plans.json'), JSON.stringify(PLANS));
    app = await startTestApp(
      { PLANS_FILE: join(dir, 'plans.json') },
      {
        exposeBus: (b) => {
          bus = b;
        },
      },
    );
  });
  afterAll(async () => {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = async (key: string, body: string) => {
    const res = await fetch(`${app.baseUrl}/f/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };

  it('answers the plans in force to anyone, without a session', async () => {
    const res = await fetch(`${app.baseUrl}/api/v1/plans`, { headers: { cookie: 'better-auth.session_token=forged' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as PlansResponseDto;
    expect(body).toMatchObject({ defaultPlan: 'small', billingEnabled: false });
    expect(body.data.map((p) => [p.id, p.name, p.limits.submissionsPerMonth])).toEqual([
      ['small', 'Small', 3],
      ['pro', 'Pro', 1000],
    ]);
    expect(body.data[1]).toMatchObject({ prices: { monthly: 1500, yearly: 0, currency: 'usd' }, trialDays: 0 });
  });

  it('holds over the plan, lifts the hold on an upgrade (not on stale or replayed changes), counts a release once, and falls back on cancel', async () => {
    const owner = await app.accounts.signUp();
    const orgId = (await app.accounts.createOrg(owner, 'Plans org')).id;
    const key = await app.accounts.createApiKey(owner, 'write');
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${app.baseUrl}${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    const usageOf = async () => (await call('GET', '/api/v1/billing/usage')) as unknown as BillingUsageDto;
    /** Whether a submission is held (listed under `?held=true`), visible (the default list), or neither yet. */
    const heldOf = async (formId: string, id: string) => {
      const list = async (query: string) =>
        ((await call('GET', `/api/v1/forms/${formId}/submissions${query}`)) as { data: { id: string }[] }).data;
      if ((await list('?held=true')).some((s) => s.id === id)) return true;
      if ((await list('')).some((s) => s.id === id)) return false;
      return undefined;
    };
    const form = (await call('POST', '/api/v1/forms', { name: 'Plans' })) as { id: string; key: string };
    await app.waitForForm(form.key);
    for (const i of [1, 2, 3]) await post(form.key, `i=${i}`);
    await eventually(async () => expect((await usageOf()).submissions).toEqual({ used: 3, max: 3, held: 0 }));
    await new Promise((r) => setTimeout(r, 300));
    const held = [await post(form.key, 'i=4'), await post(form.key, 'i=5')];
    await eventually(async () => expect((await usageOf()).submissions).toEqual({ used: 3, max: 3, held: 2 }));
    expect(await usageOf()).toMatchObject({ plan: { id: 'small', name: 'Small' }, subscription: null });

    const upgrade = subscriptionChanged(orgId, randomUUID(), '2026-11-20T10:00:00.000Z', 'active');
    await bus.publish(Topics.billingSubscription, [upgrade]);
    // The upgrade lifts the plan; forms sees the quota view under its max and releases both held submissions,
    // which billing then counts.
    await eventually(async () =>
      expect(await usageOf()).toMatchObject({
        plan: { id: 'pro', name: 'Pro' },
        subscription: { status: 'active', interval: 'month' },
        submissions: { used: 5, max: 1000, held: 0 },
        emails: { max: 500, deferred: 0 },
      }),
    );
    for (const id of held) expect(await heldOf(form.id, id as string)).toBe(false);
    // Ingest follows the quota view: not over quota any more, so a new submission is not held.
    const afterUpgrade = await eventually(async () => {
      const id = await post(form.key, 'i=6');
      await eventually(async () => expect(await heldOf(form.id, id)).toBeDefined());
      expect(await heldOf(form.id, id)).toBe(false);
      return id;
    });
    expect(afterUpgrade).toEqual(expect.any(String));
    await eventually(async () => expect((await usageOf()).submissions).toEqual({ used: 6, max: 1000, held: 0 }));

    // An older change delivered late, and the upgrade replayed: nothing changes.
    const stale = subscriptionChanged(orgId, randomUUID(), '2026-11-20T09:00:00.000Z', 'canceled');
    await bus.publish(Topics.billingSubscription, [stale, upgrade]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await usageOf()).plan.id).toBe('pro');

    // A release redelivered (twice more) is not counted again.
    const released = {
      key: form.id,
      value: encodeEvent(Topics.formsSubmission, {
        id: randomUUID(),
        type: 'submission.released',
        version: 1,
        occurredAt: new Date().toISOString(),
        data: {
          submissionId: held[0] as string,
          formId: form.id,
          orgId: orgId,
          receivedAt: new Date().toISOString(),
          fields: [{ name: 'i', value: '4' }],
          files: [],
          meta: {},
          spam: { isSpam: false, reasons: [] },
          held: false,
          releasedAt: new Date().toISOString(),
        },
      }),
    };
    await bus.publish(Topics.formsSubmission, [released, released]);
    await new Promise((r) => setTimeout(r, 500));
    expect((await usageOf()).submissions).toEqual({ used: 6, max: 1000, held: 0 });

    // Canceled (newer): the default plan again, and over it.
    await bus.publish(Topics.billingSubscription, [
      subscriptionChanged(orgId, randomUUID(), '2026-11-21T10:00:00.000Z', 'canceled'),
    ]);
    await eventually(async () =>
      expect(await usageOf()).toMatchObject({
        plan: { id: 'small' },
        subscription: { status: 'canceled' },
        submissions: { used: 6, max: 3 },
      }),
    );
    await eventually(async () => {
      const id = await post(form.key, 'i=7');
      await eventually(async () => expect(await heldOf(form.id, id)).toBeDefined());
      expect(await heldOf(form.id, id)).toBe(true);
    });
  });
});

describe('embedded mode: a bad plans file', () => {
  it('stops the boot listing every problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-plans-bad-'));
    const file = join(dir, 'plans.json');
    writeFileSync(
      file,
      JSON.stringify({
        defaultPlan: 'gold',
        plans: [{ id: 'Free!', name: 'Free', limits: { submissionsPerMonth: -1 } }],
      }),
    );
    const config = loadEmbeddedConfig({
      DATA_DIR: dir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      PLANS_FILE: file,
    });
    const failure = await startEmbedded(config).then(
      () => null,
      (err: Error) => err.message,
    );
    rmSync(dir, { recursive: true, force: true });
    expect(failure).toContain(`PLANS_FILE ${file} is invalid`);
    expect(failure).toContain('plans.0.id');
    expect(failure).toContain('plans.0.limits.submissionsPerMonth');
    expect(failure).toContain('plans.0.limits.emailsPerMonth');
  });

  it('lists problems across plans once each plan is well formed: a duplicate id, an unknown default', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-plans-bad-'));
    const file = join(dir, 'plans.json');
    const plan = { id: 'one', name: 'One', limits: { submissionsPerMonth: 1, emailsPerMonth: 1 } };
    writeFileSync(file, JSON.stringify({ defaultPlan: 'gold', plans: [plan, plan] }));
    const config = loadEmbeddedConfig({
      DATA_DIR: dir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      PLANS_FILE: file,
    });
    const failure = await startEmbedded(config).then(
      () => null,
      (err: Error) => err.message,
    );
    rmSync(dir, { recursive: true, force: true });
    expect(failure).toContain('plan id "one" appears twice');
    expect(failure).toContain('defaultPlan "gold" is not one of the plans');
  });
});
