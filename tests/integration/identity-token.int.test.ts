import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBillingService, createSqliteBillingStores, migrateSqliteBilling } from '@formgate/billing';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { DEFAULT_PLANS } from '@formgate/contracts';
import {
  createFormsService,
  createSqliteFormsStores,
  FORMS_MIGRATION_SCOPE,
  sqliteFormsMigrations,
} from '@formgate/forms';
import {
  closeServer,
  createHttpServer,
  createIdentityCodec,
  createLogger,
  IDENTITY_HEADER,
  type Identity,
  listen,
  planCatalog,
  systemClock,
  systemIds,
} from '@formgate/kit';
import { testPrivacyKeys } from '@formgate/kit/testing';
import { createOrgsService, createSqliteOrgsStores, migrateSqliteOrgs } from '@formgate/orgs';
import { createSqliteBlobStore, openSqlite, runSqliteMigrations } from '@formgate/store/sqlite';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../harness/embedded-app.ts';

const SECRET = 'the-real-identity-secret-of-this-deployment';
const identity: Identity = { userId: 'u1', email: 'u@example.test', orgId: 'org-1', roles: ['owner'], via: 'session' };
const dir = mkdtempSync(join(tmpdir(), 'fg-idn-'));
const servers: { name: string; path: string; server: Server; url: string }[] = [];

const sign = (claims: Record<string, unknown>, secret = SECRET, exp: string | number = '60s') =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('formgate-gateway')
    .setAudience('formgate-services')
    .setIssuedAt()
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));

beforeAll(async () => {
  const logger = createLogger({ level: 'silent', name: 'test' });
  const bus = createSqliteBus(openSqlite(join(dir, 'bus.db')));
  const common = { bus, clock: systemClock, ids: systemIds, identity: createIdentityCodec(SECRET), logger };
  const formsDb = openSqlite(join(dir, 'f.db'));
  runSqliteMigrations(formsDb, FORMS_MIGRATION_SCOPE, sqliteFormsMigrations);
  const billingDb = openSqlite(join(dir, 'b.db'));
  migrateSqliteBilling(billingDb);
  const orgsDb = openSqlite(join(dir, 'o.db'));
  migrateSqliteOrgs(orgsDb);
  const services = [
    {
      name: 'forms',
      path: '/api/v1/forms',
      app: createFormsService({
        ...common,
        stores: createSqliteFormsStores(formsDb),
        blobs: createSqliteBlobStore(openSqlite(':memory:')),
        privacy: testPrivacyKeys(),
      }).app,
    },
    {
      name: 'billing',
      path: '/api/v1/billing/usage',
      app: createBillingService({
        ...common,
        ...createSqliteBillingStores(billingDb),
        catalog: planCatalog(DEFAULT_PLANS),
        billingEnabled: false,
      }).app,
    },
    {
      name: 'orgs',
      path: '/api/v1/orgs/settings',
      app: createOrgsService({ ...common, ...createSqliteOrgsStores(orgsDb) }).app,
    },
  ];
  for (const s of services) {
    const server = createHttpServer(s.app);
    const port = await listen(server, 0, '127.0.0.1');
    servers.push({ name: s.name, path: s.path, server, url: `http://127.0.0.1:${port}` });
  }
});
afterAll(async () => {
  for (const s of servers) await closeServer(s.server);
  rmSync(dir, { recursive: true, force: true });
});

const forgeries: [string, () => Promise<string | undefined>][] = [
  ['no token', async () => undefined],
  ['a token signed with another secret', () => sign({ idn: identity }, 'an-attacker-chosen-secret-of-32-chars')],
  ['an expired token', () => sign({ idn: identity }, SECRET, Math.floor(Date.now() / 1000) - 5)],
  [
    'a tampered payload',
    async () => {
      const [h, , s] = (await sign({ idn: identity })).split('.');
      const payload = Buffer.from(
        JSON.stringify({
          idn: { ...identity, orgId: 'someone-else' },
          iss: 'formgate-gateway',
          aud: 'formgate-services',
          exp: 9e9,
        }),
      ).toString('base64url');
      return `${h}.${payload}.${s}`;
    },
  ],
  [
    'an unsigned (alg: none) token',
    async () => {
      const head = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
      const body = Buffer.from(
        JSON.stringify({ idn: identity, iss: 'formgate-gateway', aud: 'formgate-services', exp: 9e9 }),
      ).toString('base64url');
      return `${head}.${body}.`;
    },
  ],
  [
    'a token for another audience',
    async () =>
      new SignJWT({ idn: identity })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('formgate-gateway')
        .setAudience('elsewhere')
        .setExpirationTime('60s')
        .sign(new TextEncoder().encode(SECRET)),
  ],
];

describe('every service trusts only a valid gateway-signed identity', () => {
  it('accepts the genuine token (control)', async () => {
    for (const s of servers) {
      const res = await fetch(`${s.url}${s.path}`, { headers: { [IDENTITY_HEADER]: await sign({ idn: identity }) } });
      expect(res.status, s.name).not.toBe(401);
    }
  });
  for (const [what, make] of forgeries) {
    it(`refuses ${what} with 401`, async () => {
      const token = await make();
      for (const s of servers) {
        const res = await fetch(`${s.url}${s.path}`, { headers: token ? { [IDENTITY_HEADER]: token } : {} });
        expect(res.status, s.name).toBe(401);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
      }
    });
  }
});

describe('the gateway ignores an identity header sent by a client', () => {
  it('answers 401 on API routes and never forwards the header', async () => {
    const app = await startTestApp();
    try {
      const forged = await sign({ idn: identity }, 'whatever-secret-the-client-has-chosen');
      for (const path of [
        '/api/v1/forms',
        '/api/v1/billing/usage',
        '/api/v1/orgs/settings',
        '/api/v1/flags/emailManagement',
      ]) {
        const res = await fetch(`${app.baseUrl}${path}`, { headers: { [IDENTITY_HEADER]: forged } });
        expect(res.status, path).toBe(401);
      }
    } finally {
      await app.stop();
    }
  });
});
