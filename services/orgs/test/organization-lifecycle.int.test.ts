import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EventBus, partitionFor } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { encodeEvent, type OrganizationEvent, OrganizationEventSchema, TOPIC_SPECS, Topics } from '@formgate/contracts';
import { createIdentityCodec, createLogger, type Service, systemClock } from '@formgate/kit';
import { eventually } from '@formgate/kit/testing';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrgsService } from '../src/create-service.ts';
import type { OrgsStores } from '../src/store/orgs-stores.ts';
import { sqliteOrgsStores } from './sqlite-orgs.ts';

const actor = { userId: 'user_1', email: 'owner@example.com' };
const PARTITIONS = TOPIC_SPECS.find((t) => t.name === Topics.orgsOrganization)?.partitions ?? 0;

/** Another organization id whose events share `orgId`'s partition: once it is handled, so is all before it. */
function sibling(orgId: string): string {
  for (;;) {
    const id = `org_${randomUUID()}`;
    if (partitionFor(id, PARTITIONS) === partitionFor(orgId, PARTITIONS)) return id;
  }
}

function event(type: OrganizationEvent['type'], data: { orgId: string } & Record<string, string>) {
  const occurredAt = new Date().toISOString();
  return OrganizationEventSchema.parse({ id: randomUUID(), type, version: 1, occurredAt, data: { ...data, actor } });
}

describe('orgs.lifecycle consumer on the embedded log', () => {
  let dir: string;
  let bus: EventBus;
  let store: OrgsStores;
  let service: Service;
  const publish = (...events: OrganizationEvent[]) =>
    bus.publish(
      Topics.orgsOrganization,
      events.map((e) => ({ key: e.data.orgId, value: encodeEvent(Topics.orgsOrganization, e) })),
    );
  const created = (orgId: string) => event('organization.created', { orgId, name: 'Acme', slug: 'acme' });
  const member = (type: 'member.added' | 'member.removed', orgId: string) =>
    event(type, { orgId, memberId: 'mem_1', userId: 'user_2', role: 'member' });
  const settle = async (orgId: string) => {
    const probe = sibling(orgId);
    await publish(created(probe));
    await eventually(async () => expect(await store.orgs.getOrganization({ orgId: probe })).not.toBeNull());
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-orgs-'));
    bus = createSqliteBus(openSqlite(join(dir, 'bus.db')));
    store = sqliteOrgsStores();
    service = createOrgsService({
      ...store,
      bus,
      clock: systemClock,
      logger: createLogger({ level: 'silent', name: 'orgs' }),
      identity: createIdentityCodec(randomBytes(32).toString('base64url')),
    });
    await service.start();
  });
  afterAll(async () => {
    await service.stop();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records an organization with default settings and one audit entry per event, whatever is redelivered', async () => {
    const orgId = `org_${randomUUID()}`;
    const create = created(orgId);
    const added = member('member.added', orgId);
    await publish(create, create, added, added);
    await settle(orgId);
    expect(await store.orgs.getOrganization({ orgId })).toEqual({ orgId, name: 'Acme', slug: 'acme', deleted: false });
    expect(await store.orgs.getSettings({ orgId })).toEqual({
      submission_notification_email: null,
      email_management: false,
    });
    const log = await store.audit.listAudit({ orgId }, { limit: 10 });
    expect(log.map((e) => e.id).sort()).toEqual([create.id, added.id].sort());
    expect(log.find((e) => e.id === added.id)).toEqual({
      id: added.id,
      type: 'member.added',
      actor,
      occurredAt: added.occurredAt,
      data: { memberId: 'mem_1', userId: 'user_2', role: 'member' },
      seq: 2,
      prevHash: log.find((e) => e.id === create.id)?.hash,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('keeps settings changed since when organization.created is delivered again, and applies renames', async () => {
    const orgId = `org_${randomUUID()}`;
    const create = created(orgId);
    await publish(create);
    await settle(orgId);
    await store.orgs.updateSettings({ orgId }, { email_management: true });
    const renamed = event('organization.updated', { orgId, name: 'Acme Inc', slug: 'acme-inc' });
    await publish(create, renamed, renamed);
    await settle(orgId);
    expect(await store.orgs.getOrganization({ orgId })).toMatchObject({ name: 'Acme Inc', slug: 'acme-inc' });
    expect(await store.orgs.getSettings({ orgId })).toMatchObject({ email_management: true });
    expect((await store.audit.listAudit({ orgId }, { limit: 10 })).map((e) => e.type)).toEqual([
      'organization.updated',
      'organization.created',
    ]);
  });

  it('purges the organization on organization.deleted, and a late event leaves nothing behind', async () => {
    const orgId = `org_${randomUUID()}`;
    const other = `org_${randomUUID()}`;
    await publish(created(orgId), member('member.added', orgId), created(other));
    await settle(orgId);
    await settle(other);
    const deleted = event('organization.deleted', { orgId, name: 'Acme', slug: 'acme' });
    await publish(deleted, deleted, member('member.removed', orgId));
    await settle(orgId);
    expect(await store.orgs.getOrganization({ orgId })).toBeNull();
    expect(await store.orgs.getSettings({ orgId })).toBeNull();
    expect(await store.audit.listAudit({ orgId }, { limit: 10 })).toEqual([]);
    expect(await store.orgs.getOrganization({ orgId: other })).not.toBeNull();
    expect(await store.audit.listAudit({ orgId: other }, { limit: 10 })).toHaveLength(1);
  });
});
