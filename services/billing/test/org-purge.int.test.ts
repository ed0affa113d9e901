import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BusMessage, EventBus, Subscription } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { decodeEvent, encodeEvent, Topics } from '@formgate/contracts';
import { createIdentityCodec, createLogger, type Service } from '@formgate/kit';
import { eventually } from '@formgate/kit/testing';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBillingService } from '../src/create-service.ts';
import type { UsageStore } from '../src/store/usage-store.ts';
import { onePlan, sqliteBillingDeps } from './sqlite-billing.ts';

const NOW = new Date('2026-05-14T12:00:00.000Z');

const organizationDeleted = (orgId: string) =>
  encodeEvent(Topics.orgsOrganization, {
    id: randomUUID(),
    type: 'organization.deleted',
    version: 1,
    occurredAt: NOW.toISOString(),
    data: { orgId, actor: null, name: 'Acme', slug: 'acme' },
  });

const submissionReceived = (orgId: string) =>
  encodeEvent(Topics.ingestSubmission, {
    id: randomUUID(),
    type: 'submission.received',
    version: 1,
    occurredAt: NOW.toISOString(),
    data: {
      submissionId: randomUUID(),
      formId: 'form-1',
      orgId,
      receivedAt: NOW.toISOString(),
      fields: [],
      files: [],
      meta: {},
      spam: { isSpam: false, reasons: [] },
      held: false,
    },
  });

describe('billing.org-purge consumer on the embedded log', () => {
  let dir: string;
  let bus: EventBus;
  let store: UsageStore;
  let service: Service;
  let follower: Subscription;
  const quotaEvents: BusMessage[] = [];
  const quotasOf = (orgId: string) =>
    quotaEvents.map((m) => decodeEvent(Topics.billingQuota, m.value).data).filter((q) => q.orgId === orgId);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-billing-purge-'));
    bus = createSqliteBus(openSqlite(join(dir, 'bus.db')));
    const db = openSqlite(':memory:');
    const deps = sqliteBillingDeps(db, onePlan(2, 0));
    store = deps.usage;
    service = createBillingService({
      ...deps,
      bus,
      clock: { now: () => NOW },
      logger: createLogger({ level: 'silent', name: 'billing' }),
      identity: createIdentityCodec(randomBytes(32).toString('base64url')),
    });
    await service.start();
    follower = await bus.replay(Topics.billingQuota, (m) => void quotaEvents.push(m));
  });
  afterAll(async () => {
    await follower.stop();
    await service.stop();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deletes the organization’s usage and publishes that it is no longer over quota', async () => {
    const orgId = `org_${randomUUID()}`;
    const other = `org_${randomUUID()}`;
    const entry = (o: string, period: string) => ({ id: randomUUID(), orgId: o, period });
    await store.recordUsage([entry(orgId, '2026-04'), entry(orgId, '2026-05'), entry(orgId, '2026-05')], 'test');
    await store.recordUsage([entry(other, '2026-05')], 'test');
    const message = organizationDeleted(orgId);
    await bus.publish(Topics.orgsOrganization, [
      { key: orgId, value: message },
      { key: orgId, value: message },
    ]);

    const zero = {
      orgId,
      period: '2026-05',
      planId: 'small',
      subscriptionChangedAt: null,
      submissionsUsed: 0,
      submissionsMax: 2,
      overQuota: false,
      submissionsHeld: 0,
      emailsUsed: 0,
      emailsMax: 0,
      emailsOverQuota: true,
      // Nothing stored any more: files are welcome again.
      fileStorage: { usedMb: 0, maxMb: null, full: false, measuredAt: '2026-05-14T12:00:00.000Z' },
    };
    await eventually(() => expect(quotasOf(orgId)).toEqual([zero, zero]));
    expect(await store.getUsage({ orgId }, '2026-05')).toBe(0);
    expect(await store.getUsage({ orgId }, '2026-04')).toBe(0);
    expect(await store.getUsage({ orgId: other }, '2026-05')).toBe(1);
    expect(quotasOf(other)).toEqual([]);
  });

  it('does not meter a submission of a purged organization that arrives after the purge', async () => {
    const orgId = `org_${randomUUID()}`;
    const other = `org_${randomUUID()}`;
    await bus.publish(Topics.orgsOrganization, [{ key: orgId, value: organizationDeleted(orgId) }]);
    await eventually(() => expect(quotasOf(orgId)).toHaveLength(1));
    // One key, so the late submission is handled before the other organization's.
    await bus.publish(Topics.ingestSubmission, [
      { key: 'form-1', value: submissionReceived(orgId) },
      { key: 'form-1', value: submissionReceived(other) },
    ]);

    await eventually(() => expect(quotasOf(other).map((q) => q.submissionsUsed)).toEqual([1]));
    expect(quotasOf(orgId).map((q) => q.submissionsUsed)).toEqual([0]);
    expect(await store.getUsage({ orgId }, '2026-05')).toBe(0);
  });
});
