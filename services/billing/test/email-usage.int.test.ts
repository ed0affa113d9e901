import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { type BillingUsageDto, type DeliveryEventData, encodeEvent, Topics } from '@formgate/contracts';
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
import { onePlan, sqliteBillingDeps } from './sqlite-billing.ts';

const NOW = new Date('2026-05-14T12:00:00.000Z');

/** The emails meter: `notifications.delivery` events on a real (SQLite) log, read through `/email-quota`. */
describe('billing: emails sent, metered from delivery events', () => {
  const bus = createSqliteBus(openSqlite(':memory:'));
  const db = openSqlite(':memory:');
  const codec = createIdentityCodec(randomBytes(32).toString('base64url'));
  let service: Service;
  let server: Server;
  let baseUrl: string;

  const quota = async (orgId: string) => {
    const token = await codec.sign({ userId: 'u1', email: null, orgId, roles: ['member'], via: 'session' });
    const res = await fetch(`${baseUrl}/api/v1/billing/email-quota`, { headers: { [IDENTITY_HEADER]: token } });
    expect(res.status).toBe(200);
    return (await res.json()) as { used: number; max: number };
  };
  const usage = async (orgId: string) => {
    const token = await codec.sign({ userId: 'u1', email: null, orgId, roles: ['member'], via: 'session' });
    const res = await fetch(`${baseUrl}/api/v1/billing/usage`, { headers: { [IDENTITY_HEADER]: token } });
    expect(res.status).toBe(200);
    return ((await res.json()) as BillingUsageDto).emails;
  };
  const delivery = (
    type: 'delivery.succeeded' | 'delivery.failed' | 'delivery.deferred',
    data: Partial<DeliveryEventData> & { orgId: string },
  ) => ({
    key: data.orgId,
    value: encodeEvent(Topics.notificationsDelivery, {
      id: randomUUID(),
      type,
      version: 1,
      occurredAt: NOW.toISOString(),
      data: {
        deliveryId: randomUUID(),
        formId: 'form-1',
        submissionId: randomUUID(),
        channel: 'email',
        purpose: 'notification',
        target: 'team@example.com',
        attempt: 1,
        final: type === 'delivery.failed',
        at: NOW.toISOString(),
        ...data,
      },
    }),
  });

  beforeAll(async () => {
    service = createBillingService({
      ...sqliteBillingDeps(db, onePlan(100, 50)),
      bus,
      clock: { now: () => NOW },
      logger: createLogger({ level: 'silent', name: 'billing' }),
      identity: codec,
    });
    await service.start();
    server = createHttpServer(service.app);
    baseUrl = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  });
  afterAll(async () => {
    await closeServer(server);
    await service.stop();
    await bus.close();
  });

  it('counts each email delivery that succeeded once, in its period; not failures, webhooks or other months', async () => {
    const orgId = `org_${randomUUID()}`;
    const other = `org_${randomUUID()}`;
    const sent = delivery('delivery.succeeded', { orgId });
    await bus.publish(Topics.notificationsDelivery, [
      sent,
      sent,
      // Republished after a redelivery: a new event id, the same delivery.
      { ...sent, value: sent.value.replace(/"id":"[^"]+"/, `"id":"${randomUUID()}"`) },
      delivery('delivery.succeeded', { orgId, purpose: 'autoresponse', target: 'visitor@example.com' }),
      delivery('delivery.failed', { orgId }),
      delivery('delivery.succeeded', { orgId, channel: 'webhook', purpose: 'standard', target: 'wh_1' }),
      delivery('delivery.succeeded', { orgId, at: '2026-04-30T23:59:59.000Z' }),
      delivery('delivery.succeeded', { orgId: other }),
    ]);
    await eventually(async () => expect(await quota(other)).toEqual({ used: 1, max: 50 }));
    expect(await quota(orgId)).toEqual({ used: 2, max: 50 });
  });

  it('counts deferred emails until their outcome, once each, whatever the order and the redeliveries', async () => {
    const orgId = `org_${randomUUID()}`;
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const deferred = (deliveryId: string) => delivery('delivery.deferred', { orgId, deliveryId });
    await bus.publish(Topics.notificationsDelivery, [
      deferred(a),
      deferred(a),
      deferred(b),
      deferred(c),
      // Webhooks are never deferred; one that said so would not count.
      delivery('delivery.deferred', { orgId, channel: 'webhook', purpose: 'standard', target: 'wh_1' }),
    ]);
    await eventually(async () => expect(await usage(orgId)).toEqual({ used: 0, max: 50, deferred: 3 }));
    // a is sent, b fails for good: they leave the ledger; a deferral of a republished late stays out of it.
    await bus.publish(Topics.notificationsDelivery, [
      delivery('delivery.succeeded', { orgId, deliveryId: a }),
      delivery('delivery.failed', { orgId, deliveryId: b }),
      deferred(a),
    ]);
    await eventually(async () => expect(await usage(orgId)).toEqual({ used: 1, max: 50, deferred: 1 }));
    // An outcome before its deferral (published late by another instance) leaves nothing deferred either.
    const d = randomUUID();
    await bus.publish(Topics.notificationsDelivery, [
      delivery('delivery.succeeded', { orgId, deliveryId: d }),
      deferred(d),
      delivery('delivery.succeeded', { orgId, deliveryId: c }),
    ]);
    await eventually(async () => expect(await usage(orgId)).toEqual({ used: 3, max: 50, deferred: 0 }));
  });
});
