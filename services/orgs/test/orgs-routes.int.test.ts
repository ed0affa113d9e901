import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBus } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { type AuditChainPageDto, createAuditChainVerifier } from '@formgate/contracts';
import {
  closeServer,
  createHttpServer,
  createIdentityCodec,
  createLogger,
  IDENTITY_HEADER,
  type Identity,
  listen,
  systemClock,
} from '@formgate/kit';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrgsService } from '../src/create-service.ts';
import type { OrgsStores } from '../src/store/orgs-stores.ts';
import { DEFAULT_ORG_SETTINGS, type NewAuditEntry } from '../src/store/records.ts';
import { purgeOrganization } from '../src/use-cases/purge-organization.ts';
import { sqliteOrgsStores } from './sqlite-orgs.ts';

const codec = createIdentityCodec(randomBytes(32).toString('base64url'));
type Role = 'owner' | 'admin' | 'member';

describe('orgs routes', () => {
  let dir: string;
  let bus: EventBus;
  let store: OrgsStores;
  let server: Server;
  let baseUrl: string;

  const newOrg = async () => {
    const scope = { orgId: `org_${randomUUID()}` };
    await store.orgs.createOrganization(scope, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
    return scope.orgId;
  };
  const call = async (method: string, path: string, who: { orgId: string; role: Role } | null, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (who) {
      const identity: Identity = { userId: 'u1', email: null, orgId: who.orgId, roles: [who.role], via: 'session' };
      headers[IDENTITY_HEADER] = await codec.sign(identity);
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const errorCode = (res: { body: Record<string, unknown> }) => (res.body.error as { code?: string }).code;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-orgs-routes-'));
    bus = createSqliteBus(openSqlite(join(dir, 'bus.db')));
    store = sqliteOrgsStores();
    const service = createOrgsService({
      ...store,
      bus,
      clock: systemClock,
      logger: createLogger({ level: 'silent', name: 'orgs' }),
      identity: codec,
    });
    server = createHttpServer(service.app);
    baseUrl = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  });
  afterAll(async () => {
    await closeServer(server);
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 401 without an identity on every route', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/orgs/settings'],
      ['PATCH', '/api/v1/orgs/settings'],
      ['GET', '/api/v1/orgs/audit-log'],
      ['GET', '/api/v1/flags/emailManagement'],
    ] as const) {
      const res = await call(method, path, null, method === 'PATCH' ? {} : undefined);
      expect(res.status).toBe(401);
      expect(errorCode(res)).toBe('UNAUTHENTICATED');
    }
  });

  it('shows any member the settings of their own organization', async () => {
    const orgId = await newOrg();
    const res = await call('GET', '/api/v1/orgs/settings', { orgId, role: 'member' });
    expect(res).toEqual({
      status: 200,
      body: { submission_notification_email: null, email_management: false, spam: null },
    });
  });

  it('lets owners and admins change settings, not members', async () => {
    const orgId = await newOrg();
    const denied = await call('PATCH', '/api/v1/orgs/settings', { orgId, role: 'member' }, { email_management: true });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('organization') });
    const patch = { email_management: true, submission_notification_email: 'alerts@example.com' };
    const ok = await call('PATCH', '/api/v1/orgs/settings', { orgId, role: 'admin' }, patch);
    expect(ok).toEqual({ status: 200, body: { ...patch, spam: null } });
    const cleared = await call(
      'PATCH',
      '/api/v1/orgs/settings',
      { orgId, role: 'owner' },
      { submission_notification_email: null },
    );
    expect(cleared.body).toEqual({ submission_notification_email: null, email_management: true, spam: null });
  });

  it('refuses unknown keys, bad values and non-JSON bodies with 400 and changes nothing', async () => {
    const orgId = await newOrg();
    const owner = { orgId, role: 'owner' as const };
    for (const body of [{ email_management: true, plan: 'pro' }, { submission_notification_email: 'nope' }, [], '{']) {
      const res = await call('PATCH', '/api/v1/orgs/settings', owner, body);
      expect(res.status).toBe(400);
    }
    expect(await store.orgs.getSettings({ orgId })).toEqual(DEFAULT_ORG_SETTINGS);
  });

  it('answers 404 ORG_NOT_FOUND for an organization the service does not know (or no longer knows)', async () => {
    const deleted = await newOrg();
    await purgeOrganization(store, { orgId: deleted });
    for (const orgId of [`org_${randomUUID()}`, deleted]) {
      const patch = await call('PATCH', '/api/v1/orgs/settings', { orgId, role: 'owner' }, { email_management: true });
      expect([patch.status, errorCode(patch)]).toEqual([404, 'ORG_NOT_FOUND']);
      const get = await call('GET', '/api/v1/orgs/settings', { orgId, role: 'owner' });
      expect([get.status, errorCode(get)]).toEqual([404, 'ORG_NOT_FOUND']);
    }
    expect(await store.orgs.getOrganization({ orgId: deleted })).toBeNull();
  });

  it('scopes every route to the caller’s organization', async () => {
    const a = await newOrg();
    const b = await newOrg();
    await call('PATCH', '/api/v1/orgs/settings', { orgId: a, role: 'owner' }, { email_management: true });
    await store.audit.appendAudit({ orgId: a }, auditEntry('2026-05-01T00:00:00.000Z'));
    const asB = { orgId: b, role: 'owner' as const };
    expect((await call('GET', '/api/v1/orgs/settings', asB)).body).toEqual({ ...DEFAULT_ORG_SETTINGS, spam: null });
    expect((await call('GET', '/api/v1/flags/emailManagement', asB)).body).toEqual({
      flag: 'emailManagement',
      enabled: false,
    });
    expect((await call('GET', '/api/v1/orgs/audit-log', asB)).body).toEqual({ data: [], nextCursor: null });
  });

  it('reads a feature flag from the organization’s settings; unknown flags are 404', async () => {
    const orgId = await newOrg();
    const member = { orgId, role: 'member' as const };
    expect((await call('GET', '/api/v1/flags/emailManagement', member)).body).toEqual({
      flag: 'emailManagement',
      enabled: false,
    });
    await store.orgs.updateSettings({ orgId }, { email_management: true });
    expect(await call('GET', '/api/v1/flags/emailManagement', member)).toEqual({
      status: 200,
      body: { flag: 'emailManagement', enabled: true },
    });
    for (const name of ['email_management', 'toString', '__proto__', 'nope']) {
      const res = await call('GET', `/api/v1/flags/${name}`, member);
      expect([res.status, errorCode(res)]).toEqual([404, 'FLAG_NOT_FOUND']);
    }
  });

  it('pages the audit log newest first for owners and admins only', async () => {
    const orgId = await newOrg();
    const entries = [1, 2, 3].map((i) => auditEntry(`2026-05-0${i}T00:00:00.000Z`));
    for (const e of entries) await store.audit.appendAudit({ orgId }, e);
    const denied = await call('GET', '/api/v1/orgs/audit-log', { orgId, role: 'member' });
    expect(denied.status).toBe(403);
    const admin = { orgId, role: 'admin' as const };
    const first = await call('GET', '/api/v1/orgs/audit-log?limit=2', admin);
    const ids = (page: Record<string, unknown>) => (page.data as { id: string }[]).map((e) => e.id);
    expect(ids(first.body)).toEqual([entries[2]?.id, entries[1]?.id]);
    expect((first.body.data as unknown[])[0]).toMatchObject({
      ...entries[2],
      seq: 3,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const second = await call('GET', `/api/v1/orgs/audit-log?limit=2&cursor=${first.body.nextCursor}`, admin);
    expect(ids(second.body)).toEqual([entries[0]?.id]);
    expect(second.body.nextCursor).toBeNull();
    for (const query of ['cursor=not-a-cursor', 'limit=0', 'limit=101', 'from=yesterday']) {
      expect((await call('GET', `/api/v1/orgs/audit-log?${query}`, admin)).status).toBe(400);
    }
  });

  it('narrows the audit log by type, actor email and time', async () => {
    const orgId = await newOrg();
    const alice = { userId: 'u-alice', email: 'Alice@Example.com' };
    const entries = [
      auditEntry('2026-05-01T00:00:00.000Z', { type: 'member.added', actor: alice }),
      auditEntry('2026-05-02T00:00:00.000Z', { type: 'member.removed', actor: alice }),
      auditEntry('2026-05-03T00:00:00.000Z', { type: 'member.added' }),
      auditEntry('2026-05-04T00:00:00.000Z', { type: 'api-key.created', actor: alice }),
    ];
    for (const e of entries) await store.audit.appendAudit({ orgId }, e);
    const admin = { orgId, role: 'admin' as const };
    const ids = async (query: string) =>
      ((await call('GET', `/api/v1/orgs/audit-log?${query}`, admin)).body.data as { id: string }[]).map((e) => e.id);
    const [a, b, c, d] = entries.map((e) => e.id);
    expect(await ids('type=member.added')).toEqual([c, a]);
    expect(await ids('type=member.added,member.removed')).toEqual([c, b, a]);
    expect(await ids('actor=alice%40example.com')).toEqual([d, b, a]);
    expect(await ids('actor=alice%40example.com&type=member.added')).toEqual([a]);
    expect(await ids('from=2026-05-02T00:00:00Z&to=2026-05-04T00:00:00.000Z')).toEqual([c, b]);
  });

  it('reads the hash chain in order, page by page, and it verifies', async () => {
    const orgId = await newOrg();
    const entries = [3, 1, 2].map((i) => auditEntry(`2026-05-0${i}T00:00:00.000Z`));
    for (const e of entries) await store.audit.appendAudit({ orgId }, e);
    const admin = { orgId, role: 'admin' as const };
    expect((await call('GET', '/api/v1/orgs/audit-log/chain', { orgId, role: 'member' })).status).toBe(403);
    const verifier = createAuditChainVerifier(orgId);
    const seen: string[] = [];
    let after = 0;
    for (;;) {
      const page = (await call('GET', `/api/v1/orgs/audit-log/chain?limit=2&after=${after}`, admin))
        .body as AuditChainPageDto;
      expect(page.orgId).toBe(orgId);
      seen.push(...page.data.map((e) => e.id));
      expect(await verifier.check(page.data.map((e) => ({ ...e, orgId })))).toBe(true);
      if (page.next === null) break;
      after = page.next;
    }
    // Appended order, not time order.
    expect(seen).toEqual(entries.map((e) => e.id));
    expect(verifier.result()).toMatchObject({ ok: true, entries: 3 });
  });
});

function auditEntry(occurredAt: string, overrides: Partial<NewAuditEntry> = {}): NewAuditEntry {
  return {
    id: randomUUID(),
    type: 'team.created',
    actor: null,
    occurredAt,
    data: { teamId: 't1', name: 'Ops' },
    ...overrides,
  };
}
