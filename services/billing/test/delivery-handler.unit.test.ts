import { randomUUID } from 'node:crypto';
import type { BusMessage } from '@formgate/bus';
import { type DeliveryEventData, encodeEvent, Topics } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { createEmailUsageHandler } from '../src/handlers/delivery.handler.ts';
import type { Quota } from '../src/quota.ts';
import type { HeldStore } from '../src/store/held-store.ts';
import type { HeldEntry, UsageEntry } from '../src/store/records.ts';
import type { UsageStore } from '../src/store/usage-store.ts';

const orgId = 'org_1';
const message = (
  type: 'delivery.succeeded' | 'delivery.failed' | 'delivery.deferred',
  deliveryId: string,
  extra: Partial<DeliveryEventData> = {},
): BusMessage => ({
  topic: Topics.notificationsDelivery,
  partition: 0,
  offset: '0',
  key: orgId,
  headers: {},
  timestamp: 0,
  value: encodeEvent(Topics.notificationsDelivery, {
    id: randomUUID(),
    type,
    version: 1,
    occurredAt: '2026-05-14T12:00:00.000Z',
    data: {
      deliveryId,
      orgId,
      formId: 'form_1',
      submissionId: 'sub_1',
      channel: 'email',
      purpose: 'notification',
      target: 'team@example.com',
      attempt: 1,
      final: true,
      at: '2026-05-14T12:00:00.000Z',
      ...extra,
    },
  }),
});

/** What the handler writes to the deferred emails' ledger and the emails meter. */
function recording() {
  const released: HeldEntry[] = [];
  const metered: { entries: UsageEntry[]; writer: string }[] = [];
  const deferredEmails = {
    hold: async () => {},
    release: async (entries: HeldEntry[]) => void released.push(...entries),
  } as unknown as HeldStore;
  const emails = {
    recordUsage: async (entries: UsageEntry[], writer: string) => {
      metered.push({ entries, writer });
      return [];
    },
  } as unknown as UsageStore;
  const quota = { publish: async () => {} } as unknown as Quota;
  return { released, metered, handler: createEmailUsageHandler({ emails, deferredEmails, quota }) };
}

describe('billing: the emails meter and the deferred emails’ ledger (ADR 65)', () => {
  it('meters an outcome marked never deferred without writing to the deferred ledger; others leave it', async () => {
    const { released, metered, handler } = recording();
    await handler([
      message('delivery.succeeded', 'd_batch', { neverDeferred: true }),
      message('delivery.succeeded', 'd_retried'),
      message('delivery.failed', 'd_failed'),
    ]);
    expect(released.map((e) => e.id)).toEqual(['d_retried', 'd_failed']);
    expect(metered).toEqual([
      {
        writer: `emails:${Topics.notificationsDelivery}:0`,
        entries: [
          { id: 'd_batch', orgId, period: '2026-05' },
          { id: 'd_retried', orgId, period: '2026-05' },
        ],
      },
    ]);
  });
});
