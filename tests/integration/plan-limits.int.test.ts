import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeEvent, Topics } from '@formgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Org } from '../harness/accounts.ts';
import type { BrowserSession } from '../harness/browser-session.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

/** The default plan allows 2 forms and 2 members; `big` has no such limits. */
const PLANS = {
  defaultPlan: 'small',
  plans: [
    {
      id: 'small',
      name: 'Small',
      limits: { submissionsPerMonth: 1000, emailsPerMonth: 100, forms: 2, members: 2, fileStorageMb: 1 },
    },
    { id: 'big', name: 'Big', prices: { monthly: 1500 }, limits: { submissionsPerMonth: 1000, emailsPerMonth: 100 } },
  ],
};

const subscribed = (orgId: string, planId: string) => {
  const changedAt = new Date().toISOString();
  return {
    key: orgId,
    value: encodeEvent(Topics.billingSubscription, {
      id: randomUUID(),
      type: 'subscription.changed',
      version: 1,
      occurredAt: changedAt,
      data: {
        orgId,
        planId,
        status: 'active',
        interval: 'month',
        periodStart: changedAt,
        periodEnd: null,
        cancelAtPeriodEnd: false,
        trialEnd: null,
        stripeSubscriptionId: 'sub_test',
        changedAt,
      },
    }),
  };
};

type Reply = { id?: string; error?: Record<string, unknown>; data?: { name: string }[]; storage?: unknown };

describe('embedded mode: the plan’s other limits (forms, members, file storage)', () => {
  let app: TestApp;
  let owner: BrowserSession;
  let org: Org;
  let key: string;
  const dir = mkdtempSync(join(tmpdir(), 'fg-limits-'));
  beforeAll(async () => {
    writeFileSync(join(dir, 'plans.json'), JSON.stringify(PLANS));
    app = await startTestApp({ PLANS_FILE: join(dir, 'plans.json') });
    owner = await app.accounts.signUp();
    org = await app.accounts.createOrg(owner, 'Small plan');
    key = await app.accounts.createApiKey(owner);
  });
  afterAll(async () => {
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${app.baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as Reply };
  }

  it('forms: a third form is refused with PLAN_LIMIT_REACHED, deleting one frees a slot, an upgrade lifts it', async () => {
    const first = await api('POST', '/api/v1/forms', { name: 'One' });
    const second = await api('POST', '/api/v1/forms', { name: 'Two' });
    expect([first.status, second.status]).toEqual([201, 201]);
    const third = await api('POST', '/api/v1/forms', { name: 'Three' });
    expect(third.status).toBe(403);
    expect(third.body.error).toMatchObject({
      code: 'PLAN_LIMIT_REACHED',
      message: expect.stringMatching(/allows 2 forms/),
      details: { limit: 'forms', max: 2 },
    });
    // Nothing was created.
    expect((await api('GET', '/api/v1/forms')).body.data?.map((f) => f.name)).toEqual(['One', 'Two']);
    // Another organization has its own count.
    expect((await app.api('POST', '/api/v1/forms', { name: 'Elsewhere' }, 'other-org')).status).toBe(201);

    expect((await api('DELETE', `/api/v1/forms/${first.body.id}`)).status).toBe(204);
    expect((await api('POST', '/api/v1/forms', { name: 'Three' })).status).toBe(201);
    expect((await api('POST', '/api/v1/forms', { name: 'Four' })).status).toBe(403);

    // An upgrade (billing's quota view now names `big`): no forms limit.
    await app.bus.publish(Topics.billingSubscription, [subscribed(org.id, 'big')]);
    await eventually(async () => expect((await api('POST', '/api/v1/forms', { name: 'Four' })).status).toBe(201));
    expect((await api('POST', '/api/v1/forms', { name: 'Five' })).status).toBe(201);

    // A downgrade keeps the forms over the limit; only creating is refused again.
    await app.bus.publish(Topics.billingSubscription, [subscribed(org.id, 'small')]);
    // Until forms has read the new view, a create may still pass: count those.
    let createdBeforeDowngrade = 0;
    await eventually(async () => {
      const six = await api('POST', '/api/v1/forms', { name: 'Six' });
      if (six.status === 201) createdBeforeDowngrade += 1;
      expect(six.status).toBe(403);
    });
    expect((await api('GET', '/api/v1/forms')).body.data).toHaveLength(4 + createdBeforeDowngrade);
  });

  it('members: the owner and one invitation fill a plan of 2; the second invitation is refused with PLAN_LIMIT_REACHED', async () => {
    const invite = (email: string) =>
      owner.call('POST', '/api/auth/organization/invite-member', { email, role: 'member', organizationId: org.id });
    const first = await app.accounts.signUp();
    const invited = await invite(first.email);
    expect(invited.status).toBe(200);
    const refused = await invite(`second-${randomUUID()}@example.test`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 'PLAN_LIMIT_REACHED',
      message: "The organization's plan allows 2 members, pending invitations included; remove one or upgrade the plan",
    });
    // Inviting the same address again replaces its pending invitation: allowed.
    const again = await invite(first.email);
    expect(again.status).toBe(200);
    // The invitation is accepted: 2 members, still full.
    const accepted = await first.call('POST', '/api/auth/organization/accept-invitation', {
      invitationId: again.body.id,
    });
    expect(accepted.status).toBe(200);
    expect((await invite(`third-${randomUUID()}@example.test`)).status).toBe(403);
    // Removing the member frees the seat.
    const removed = await owner.call('POST', '/api/auth/organization/remove-member', {
      memberIdOrEmail: first.email,
      organizationId: org.id,
    });
    expect(removed.status).toBe(200);
    expect((await invite(`fourth-${randomUUID()}@example.test`)).status).toBe(200);
  });

  it('storage: uploaded files show in MB on the usage, over the limit uploads are still accepted, deleting frees them', async () => {
    // An organization of its own: the first one is over its forms limit by now.
    const mine = 'storage-org';
    const other = 'storage-other-org';
    const call = async (method: string, path: string) => {
      const res = await fetch(`${app.baseUrl}${path}`, { method, headers: { 'x-api-key': await app.apiKey(mine) } });
      return { status: res.status, body: (await res.json().catch(() => null)) as Reply };
    };
    const created = await app.api('POST', '/api/v1/forms', { name: 'Uploads' }, mine);
    expect(created.status).toBe(201);
    const form = created.body as { id: string; key: string };
    await app.waitForForm(form.key);
    const upload = async (sizes: number[]) => {
      const body = new FormData();
      body.set('name', 'files');
      for (const [i, size] of sizes.entries()) {
        body.append(`file${i}`, new Blob([new Uint8Array(size).fill(65)]), `f${i}.bin`);
      }
      const res = await fetch(`${app.baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { accept: 'application/json' },
        body,
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { id: string }).id;
    };
    const storage = async () => (await call('GET', '/api/v1/billing/usage')).body.storage;

    expect(await storage()).toEqual({ usedMb: 0, maxMb: 1 });
    const half = await upload([256 * 1024, 256 * 1024]); // 0.5 MiB
    await eventually(async () => expect(await storage()).toEqual({ usedMb: 0.5, maxMb: 1 }));
    // Over the plan's 1 MiB: still accepted and kept (never lose a submission), shown over the limit.
    const big = await upload([768 * 1024]);
    await eventually(async () => expect(await storage()).toEqual({ usedMb: 1.25, maxMb: 1 }));
    await eventually(async () =>
      expect((await app.listSubmissions(form.id, '', mine)).data.map((s) => s.id)).toContain(big),
    );
    // Another organization's usage is its own.
    expect((await app.api('GET', '/api/v1/billing/usage', undefined, other)).body.storage).toEqual({
      usedMb: 0,
      maxMb: 1,
    });

    expect((await call('DELETE', `/api/v1/forms/${form.id}/submissions/${big}`)).status).toBe(204);
    await eventually(async () => expect(await storage()).toEqual({ usedMb: 0.5, maxMb: 1 }));
    expect(half).toBeTruthy();
    // Deleting the form frees the rest.
    expect((await call('DELETE', `/api/v1/forms/${form.id}`)).status).toBe(204);
    await eventually(async () => expect(await storage()).toEqual({ usedMb: 0, maxMb: 1 }));
  });
});
