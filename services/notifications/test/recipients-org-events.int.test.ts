import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConsumers, type EventBus } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { encodeEvent, type OrganizationEvent, TOPIC_SPECS, Topics } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecipientsOrgHandler } from '../src/recipients/org-events.handler.ts';
import type { GoneSubmissions, RecipientStore } from '../src/store/index.ts';
import { createSqliteNotificationStores, createSqliteRecipientStore } from '../src/store/sqlite/index.ts';
import { migratedSqlite } from './notifications-db.ts';

const NOW = new Date('2026-11-01T10:00:00.000Z');
const orgEvent = (
  type: 'organization.created' | 'organization.updated' | 'organization.deleted',
  orgId: string,
  name: string,
) =>
  encodeEvent(Topics.orgsOrganization, {
    id: randomUUID(),
    type,
    version: 1,
    occurredAt: NOW.toISOString(),
    data: { orgId, actor: null, name, slug: 'acme' },
  } as OrganizationEvent);

describe('notifications.recipients-org consumer on the embedded log', () => {
  let dir: string;
  let bus: EventBus;
  let store: RecipientStore;
  let gone: GoneSubmissions;
  let consumers: ReturnType<typeof createConsumers>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-recipients-org-'));
    bus = createSqliteBus(openSqlite(join(dir, 'bus.db')));
    const db = migratedSqlite();
    store = createSqliteRecipientStore(db);
    gone = createSqliteNotificationStores(db).gone;
    consumers = createConsumers(bus, TOPIC_SPECS, [
      {
        group: 'notifications.recipients-org',
        topic: Topics.orgsOrganization,
        handler: createRecipientsOrgHandler({ store, gone }),
      },
    ]);
    await consumers.start();
  });
  afterAll(async () => {
    await consumers.stop();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the organization’s name, then purges its addresses and tombstones on deletion (twice is harmless), and only its', async () => {
    const orgId = `org_${randomUUID()}`;
    const other = `org_${randomUUID()}`;
    await bus.publish(Topics.orgsOrganization, [
      { key: orgId, value: orgEvent('organization.created', orgId, 'Acme') },
      { key: orgId, value: orgEvent('organization.updated', orgId, 'Acme Labs') },
    ]);
    await eventually(async () => expect(await store.getOrgName(orgId)).toBe('Acme Labs'));
    const email = () => ({ id: randomUUID(), email: 'ann@example.com', createdAt: NOW, verifiedAt: NOW });
    await store.add({ orgId }, email(), { limit: 50 });
    await store.add({ orgId: other }, email(), { limit: 50 });
    const [mine, theirs] = [
      { orgId, submissionId: randomUUID() },
      { orgId: other, submissionId: randomUUID() },
    ];
    for (const g of [mine, theirs]) await gone.markGone({ ...g, goneAt: NOW.toISOString() });

    const deleted = orgEvent('organization.deleted', orgId, 'Acme Labs');
    await bus.publish(Topics.orgsOrganization, [
      { key: orgId, value: deleted },
      { key: orgId, value: deleted },
    ]);
    await eventually(async () => expect(await gone.listGone([mine, theirs])).toEqual(new Set([theirs.submissionId])));
    expect(await store.listVerified(orgId)).toEqual([]);
    expect(await store.getOrgName(orgId)).toBeNull();
    expect(await store.listVerified(other)).toEqual(['ann@example.com']);
  });
});
