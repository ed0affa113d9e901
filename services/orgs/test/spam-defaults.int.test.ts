import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBus } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { decodeEvent, type TopicEvent, Topics } from '@formgate/contracts';
import {
  closeServer,
  createHttpServer,
  createIdentityCodec,
  createLogger,
  IDENTITY_HEADER,
  type Identity,
  listen,
  type Service,
  systemClock,
} from '@formgate/kit';
import { eventually } from '@formgate/kit/testing';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrgsService } from '../src/create-service.ts';
import type { OrgsStores } from '../src/store/orgs-stores.ts';
import { DEFAULT_ORG_SETTINGS } from '../src/store/records.ts';
import { sqliteOrgsStores } from './sqlite-orgs.ts';

const codec = createIdentityCodec(randomBytes(32).toString('base64url'));
type Role = 'owner' | 'admin' | 'member';

/** The organization's spam defaults (issue 14) through the orgs service, on a real (SQLite) log. */
describe('orgs: spam defaults under /api/v1/orgs/settings, published on orgs.settings', () => {
  let dir: string;
  let bus: EventBus;
  let store: OrgsStores;
  let service: Service;
  let server: Server;
  let baseUrl: string;
  const published: TopicEvent<typeof Topics.orgsSettings>[] = [];

  const newOrg = async () => {
    const scope = { orgId: `org_${randomUUID()}` };
    await store.orgs.createOrganization(scope, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
    return scope.orgId;
  };
  const call = async (method: string, who: { orgId: string; role: Role }, body?: unknown) => {
    const identity: Identity = { userId: 'u1', email: null, orgId: who.orgId, roles: [who.role], via: 'session' };
    const headers: Record<string, string> = { [IDENTITY_HEADER]: await codec.sign(identity) };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${baseUrl}/api/v1/orgs/settings`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: response bodies of several shapes
    return { status: res.status, body: (await res.json()) as any };
  };
  const of = (orgId: string) => published.filter((e) => e.data.orgId === orgId);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-orgs-spam-'));
    bus = createSqliteBus(openSqlite(join(dir, 'bus.db')));
    store = sqliteOrgsStores(join(dir, 'orgs.db'));
    service = createOrgsService({
      ...store,
      bus,
      clock: systemClock,
      logger: createLogger({ level: 'silent', name: 'orgs' }),
      identity: codec,
    });
    await service.start();
    await bus.subscribe({
      group: `test-${randomUUID()}`,
      topic: Topics.orgsSettings,
      handler: async (batch) => {
        for (const m of batch) published.push(decodeEvent(Topics.orgsSettings, m.value));
      },
    });
    server = createHttpServer(service.app);
    baseUrl = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  });
  afterAll(async () => {
    await closeServer(server);
    await service.stop();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets owners and admins set the defaults (replaced whole), never shows the secret, publishes each version', async () => {
    const orgId = await newOrg();
    const secret = `sk_${randomUUID()}`;
    const captcha = { provider: 'recaptcha', secret, minScore: 0.5, onFailure: 'flag' };
    const denied = await call('PATCH', { orgId, role: 'member' }, { spam: { timeTrapSeconds: 2 } });
    expect([denied.status, denied.body.error.code]).toEqual([403, 'FORBIDDEN']);

    const first = await call('PATCH', { orgId, role: 'admin' }, { spam: { timeTrapSeconds: 2, captcha } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      submission_notification_email: null,
      email_management: false,
      spam: {
        timeTrapSeconds: 2,
        captcha: { provider: 'recaptcha', secret: null, secretSet: true, minScore: 0.5, onFailure: 'flag' },
      },
    });
    const { secret: _s, ...withoutSecret } = captcha;
    const second = await call(
      'PATCH',
      { orgId, role: 'owner' },
      { spam: { timeTrapSeconds: 2, captcha: { ...withoutSecret, minScore: 0.7 } } },
    );
    expect(second.body.spam).toEqual({
      timeTrapSeconds: 2,
      captcha: { provider: 'recaptcha', secret: null, secretSet: true, minScore: 0.7, onFailure: 'flag' },
    });
    const read = await call('GET', { orgId, role: 'member' });
    expect(read.body.spam).toEqual(second.body.spam);
    expect(JSON.stringify([first.body, second.body, read.body])).not.toContain(secret);

    // Each change is one `org.settings-changed`, versions increasing, the secret kept for ingest.
    await eventually(() => expect(of(orgId)).toHaveLength(2));
    expect(of(orgId).map((e) => e.data.version)).toEqual([1, 2]);
    expect(of(orgId)[1]?.data.spam).toEqual({ timeTrapSeconds: 2, captcha: { ...captcha, minScore: 0.7 } });

    // Refused: a provider needing a secret without one, and a bad value; neither changes nor publishes anything.
    const missing = await call(
      'PATCH',
      { orgId, role: 'owner' },
      { spam: { captcha: { ...withoutSecret, provider: 'turnstile' } } },
    );
    expect([missing.status, missing.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const bad = await call('PATCH', { orgId, role: 'owner' }, { spam: { rateLimit: { perIpPerMinute: -1 } } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const cleared = await call('PATCH', { orgId, role: 'owner' }, { spam: null });
    expect(cleared.body.spam).toBeNull();
    await eventually(() =>
      expect(of(orgId).map((e) => [e.data.version, e.data.spam])).toEqual([
        [1, expect.anything()],
        [2, expect.anything()],
        [3, null],
      ]),
    );
    expect(await store.spam.listUnpublishedSpamSettings(100)).toEqual([]);
  });
});
