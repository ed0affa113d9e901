import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import {
  closeServer,
  createHttpServer,
  createIdentityCodec,
  createLogger,
  createServiceApp,
  errorHandler,
  IDENTITY_HEADER,
  type Identity,
  listen,
  systemIds,
} from '@formgate/kit';
import { createSmtpMailer, extractLinks, type Mailer } from '@formgate/mail';
import { type SmtpTestServer, startSmtpTestServer } from '@formgate/mail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecipientRoutes } from '../src/recipients/recipients.routes.ts';
import { createVerificationTokens } from '../src/recipients/verification-token.ts';
import type { RecipientStore } from '../src/store/index.ts';
import { createSqliteRecipientStore } from '../src/store/sqlite/index.ts';
import { migratedSqlite } from './notifications-db.ts';

const codec = createIdentityCodec(randomBytes(32).toString('base64url'));
const LINK_SECRET = randomBytes(32).toString('base64url');
const PUBLIC_URL = 'https://forms.example';
const LIMIT = 3;
type Role = 'owner' | 'admin' | 'member';
interface Caller {
  orgId: string;
  role?: Role;
  email?: string;
  via?: Identity['via'];
}

describe('notification emails routes (embedded store, real SMTP)', () => {
  let smtp: SmtpTestServer;
  let mailer: Mailer;
  let store: RecipientStore;
  let server: Server;
  let baseUrl: string;
  let now = new Date('2026-11-01T10:00:00.000Z');
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };

  const call = async (method: string, path: string, who: Caller | null, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (who) {
      const identity: Identity = {
        userId: 'u1',
        email: who.email ?? 'owner@org.example',
        orgId: who.orgId,
        roles: [who.role ?? 'owner'],
        via: who.via ?? 'session',
      };
      headers[IDENTITY_HEADER] = await codec.sign(identity);
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      redirect: 'manual',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      location: res.headers.get('location'),
      body: (res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null) as Record<string, unknown> & {
        error?: { code: string };
      },
    };
  };
  const list = async (who: Caller) => (await call('GET', '/api/v1/notification-emails', who)).body.data as unknown[];
  const add = (who: Caller, email: string) => call('POST', '/api/v1/notification-emails', who, { email });
  const open = async (link: string) => call('GET', link.slice(PUBLIC_URL.length), null);
  const linkIn = async (to: string) => {
    const mail = await smtp.waitFor((m) => m.to.includes(to));
    const link = extractLinks(mail.text).find((l) => l.includes('/verify?token='));
    expect(link).toBeDefined();
    return { mail, link: link as string };
  };
  const newOrg = () => ({ orgId: `org_${randomUUID()}` });

  beforeAll(async () => {
    smtp = await startSmtpTestServer();
    mailer = createSmtpMailer({ url: smtp.url, from: 'Formgate <no-reply@forms.example>' });
    store = createSqliteRecipientStore(migratedSqlite());
    const app = createServiceApp();
    app.use(
      createRecipientRoutes({
        store,
        mailer,
        composeVerification: ({ email, link, orgName }) => ({
          to: email,
          subject: `Confirm ${email} for ${orgName}`,
          text: `Confirm this address: ${link}`,
        }),
        clock: { now: () => now },
        ids: systemIds,
        identity: codec,
        logger: createLogger({ level: 'silent', name: 'notifications' }),
        publicUrl: `${PUBLIC_URL}/`,
        linkSecret: LINK_SECRET,
        limit: LIMIT,
      }),
    );
    app.use(errorHandler(createLogger({ level: 'silent', name: 'notifications' })));
    server = createHttpServer(app);
    baseUrl = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  });
  afterAll(async () => {
    await closeServer(server);
    await mailer.close();
    await smtp.stop();
    await store.close();
  });

  it('adds an address, mails a link, and the link verifies it for delivery', async () => {
    const org = newOrg();
    await store.setOrgName(org.orgId, 'Acme <Labs>');
    const created = await add(org, 'Ann@Example.com');
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      email: 'ann@example.com',
      verified: false,
      createdAt: now.toISOString(),
    });
    const { mail, link } = await linkIn('ann@example.com');
    expect(mail.subject).toBe('Confirm ann@example.com for Acme <Labs>');
    expect(link.startsWith(`${PUBLIC_URL}/api/v1/notification-emails/verify?token=`)).toBe(true);
    expect(await store.listVerified(org.orgId)).toEqual([]);

    const opened = await open(link);
    expect(opened.status).toBe(303);
    expect(opened.location).toBe(`${PUBLIC_URL}/dashboard/emails/verification-success/ann%40example.com`);
    expect(await store.listVerified(org.orgId)).toEqual(['ann@example.com']);
    expect(await list(org)).toEqual([{ ...created.body, verified: true }]);
    expect((await open(link)).location).toContain('/verification-success/');
    const again = await add(org, 'ANN@example.com');
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('NOTIFICATIONS_EMAIL_ALREADY_VERIFIED');
  });

  it('refuses expired, tampered and foreign links, and links to removed addresses, with a redirect', async () => {
    const org = newOrg();
    const added = await add(org, 'bob@example.com');
    const { link } = await linkIn('bob@example.com');
    const token = new URL(link).searchParams.get('token') as string;
    const [payload, signature] = token.split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify([org.orgId, added.body.id, 'eve@example.com', Math.floor(now.getTime() / 1000) + 3600]),
    ).toString('base64url');
    const foreign = createVerificationTokens(randomBytes(32).toString('base64url')).sign(
      { orgId: org.orgId, addressId: String(added.body.id), email: 'bob@example.com' },
      now.getTime(),
    );
    const invalid = `${PUBLIC_URL}/dashboard/emails?verification=invalid`;
    for (const bad of [`${forged}.${signature}`, `${payload}.${signature.slice(1)}x`, foreign, '', 'a.b.c', '%ff']) {
      const res = await call('GET', `/api/v1/notification-emails/verify?token=${encodeURIComponent(bad)}`, null);
      expect([res.status, res.location]).toEqual([303, invalid]);
    }
    expect((await call('GET', '/api/v1/notification-emails/verify', null)).location).toBe(invalid);

    advance(24 * 3600_000);
    expect((await open(link)).location).toBe(invalid);
    expect(await store.listVerified(org.orgId)).toEqual([]);

    advance(-24 * 3600_000 + 1000);
    expect((await call('DELETE', `/api/v1/notification-emails/${added.body.id}`, org)).status).toBe(204);
    expect((await open(link)).location).toBe(invalid);
    // The mail counter outlives removal: removing and re-adding does not buy another mail.
    const readded = await add(org, 'bob@example.com');
    expect([readded.status, readded.body.error?.code]).toEqual([429, 'NOTIFICATIONS_VERIFICATION_RECENTLY_SENT']);
    expect(await list(org)).toMatchObject([{ email: 'bob@example.com', verified: false }]);
  });

  it('verifies the caller’s own sign-in address at once, without a mail, only for a session', async () => {
    const org = newOrg();
    const before = smtp.messages.length;
    const own = await add({ ...org, email: 'Owner@Org.example' }, 'owner@org.example');
    expect(own.status).toBe(201);
    expect(own.body.verified).toBe(true);
    expect(await store.listVerified(org.orgId)).toEqual(['owner@org.example']);

    const byKey = await add({ ...org, email: 'key@org.example', via: 'api-key' }, 'key@org.example');
    expect(byKey.body.verified).toBe(false);
    await linkIn('key@org.example');
    expect(smtp.messages.slice(before).flatMap((m) => m.to)).toEqual(['key@org.example']);
  });

  it('verifies a waiting address at once when its owner adds it', async () => {
    const org = newOrg();
    await add(org, 'carol@example.com');
    await linkIn('carol@example.com');
    const res = await add({ ...org, email: 'carol@example.com' }, 'carol@example.com');
    expect([res.status, res.body.verified]).toEqual([200, true]);
  });

  it('re-sends the link on a second POST, at most once a minute', async () => {
    const org = newOrg();
    const first = await add(org, 'dan@example.com');
    await linkIn('dan@example.com');
    const tooSoon = await add(org, 'dan@example.com');
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.body.error?.code).toBe('NOTIFICATIONS_VERIFICATION_RECENTLY_SENT');
    advance(60_000);
    const resent = await add(org, 'dan@example.com');
    expect([resent.status, resent.body.id]).toEqual([200, first.body.id]);
    await smtp.waitFor(
      (m) => m.to.includes('dan@example.com') && m !== smtp.messages.find((x) => x.to.includes('dan@example.com')),
    );
    expect(smtp.messages.filter((m) => m.to.includes('dan@example.com'))).toHaveLength(2);
  });

  it('keeps organizations apart: another organization cannot see or delete an address', async () => {
    const a = newOrg();
    const b = newOrg();
    const added = await add(a, 'erin@example.com');
    expect(await list(b)).toEqual([]);
    const del = await call('DELETE', `/api/v1/notification-emails/${added.body.id}`, b);
    expect(del.status).toBe(404);
    expect(del.body.error?.code).toBe('NOTIFICATIONS_EMAIL_NOT_FOUND');
    expect(await list(a)).toHaveLength(1);
  });

  it('lets members read but only owners and admins add or remove', async () => {
    const org = newOrg();
    const added = await add({ ...org, role: 'admin' }, 'fay@example.com');
    expect(added.status).toBe(201);
    const member = { ...org, role: 'member' as const };
    expect(await list(member)).toHaveLength(1);
    const refused = await add(member, 'gus@example.com');
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    expect((await call('DELETE', `/api/v1/notification-emails/${added.body.id}`, member)).status).toBe(403);
    expect(await list(org)).toHaveLength(1);
    for (const [method, path] of [
      ['GET', '/api/v1/notification-emails'],
      ['POST', '/api/v1/notification-emails'],
      ['DELETE', `/api/v1/notification-emails/${added.body.id}`],
    ] as const) {
      expect((await call(method, path, null, method === 'POST' ? { email: 'x@y.example' } : undefined)).status).toBe(
        401,
      );
    }
  });

  it('refuses header injection and malformed addresses by validation, sending nothing', async () => {
    const org = newOrg();
    const before = smtp.messages.length;
    for (const email of ['a@b.c\r\nBcc: x@y.z', 'a@b.c\nBcc: x@y.z', 'x@y.z, other@y.z', 'not an email', 42]) {
      const res = await call('POST', '/api/v1/notification-emails', org, { email });
      expect([res.status, res.body.error?.code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    const notJson = await fetch(`${baseUrl}/api/v1/notification-emails`, {
      method: 'POST',
      headers: {
        [IDENTITY_HEADER]: await codec.sign({
          userId: 'u',
          email: null,
          orgId: org.orgId,
          roles: ['owner'],
          via: 'session',
        }),
        'content-type': 'text/plain',
      },
      body: 'email=a@b.c',
    });
    expect(notJson.status).toBe(415);
    expect(await list(org)).toEqual([]);
    expect(smtp.messages.length).toBe(before);
  });

  it('stops at the limit of addresses per organization with a clear error', async () => {
    const org = newOrg();
    for (const n of [1, 2, 3])
      expect((await add({ ...org, email: `${n}@x.example` }, `${n}@x.example`)).status).toBe(201);
    const over = await add(org, '4@x.example');
    expect([over.status, over.body.error?.code]).toEqual([409, 'NOTIFICATIONS_EMAIL_LIMIT_REACHED']);
    expect(String((over.body.error as { message?: string }).message)).toContain('at most 3');
  });
});
