import { describe, expect, it } from 'vitest';
import type { TargetRef } from './target.ts';

/** Organization API keys, the dashboard's §7 calls and the CSRF rules through the gateway; run in both modes. */
export function describeApiKeyFlows(target: TargetRef) {
  const withKey = (key: string, method = 'GET', path = '/api/v1/forms', body?: unknown) =>
    fetch(`${target().baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  describe('organization API keys', () => {
    it('are shown once, stored hashed, listed without the secret, and revocable', async () => {
      const owner = await target().accounts.signUp();
      await target().accounts.createOrg(owner);
      const created = await owner.call('POST', '/api/v1/api-keys', { name: 'ci', scope: 'write' });
      expect(created.status).toBe(201);
      const { key, id } = created.body as { key: string; id: string };
      expect(key).toMatch(/^fg_/);

      const listed = (await owner.call('GET', '/api/v1/api-keys')).body.data;
      expect(listed).toEqual([expect.objectContaining({ id, name: 'ci', scope: 'write' })]);
      expect(JSON.stringify(listed)).not.toContain(key);
      const stored = await target().storedApiKey(id);
      expect(stored).toBeTruthy();
      expect(stored).not.toContain(key.slice(3));

      expect((await withKey(key)).status).toBe(200);
      const bearer = await fetch(`${target().baseUrl}/api/v1/forms`, { headers: { authorization: `Bearer ${key}` } });
      expect(bearer.status).toBe(200);
      expect((await owner.call('DELETE', `/api/v1/api-keys/${id}`)).status).toBe(204);
      expect((await withKey(key)).status).toBe(401);
    });

    it('scope: a read key reads but cannot write; a write key creates forms in its own organization', async () => {
      const owner = await target().accounts.signUp();
      await target().accounts.createOrg(owner);
      const read = await target().accounts.createApiKey(owner, 'read');
      const write = await target().accounts.createApiKey(owner, 'write');
      const refused = await withKey(read, 'POST', '/api/v1/forms', { name: 'No' });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
        'This API key is read-only',
      );
      const form = await withKey(write, 'POST', '/api/v1/forms', { name: 'Scripted' });
      expect(form.status).toBe(201);
      const listed = (await (await withKey(read)).json()) as { data: { name: string; slug: string }[] };
      expect(listed.data.map((f) => f.slug)).toEqual(['scripted']);
    });

    it('die with the member who created them: removal or a downgrade revokes their keys, not the others', async () => {
      const owner = await target().accounts.signUp();
      const org = await target().accounts.createOrg(owner);
      const admin = await target().accounts.addMember(owner, org, 'admin');
      const other = await target().accounts.addMember(owner, org, 'admin');
      const adminKey = await target().accounts.createApiKey(admin, 'write');
      const otherKey = await target().accounts.createApiKey(other, 'write');
      const ownerKey = await target().accounts.createApiKey(owner, 'write');
      const listed = (await owner.call('GET', '/api/v1/api-keys')).body.data as { createdBy: string }[];
      expect(new Set(listed.map((k) => k.createdBy)).size).toBe(3);
      // Used first, so the gateway has them cached: revocation must evict them, not wait for the cache to expire.
      for (const key of [adminKey, otherKey, ownerKey]) expect((await withKey(key)).status).toBe(200);

      expect(
        (await owner.call('POST', '/api/auth/organization/remove-member', { memberIdOrEmail: admin.email })).status,
      ).toBe(200);
      expect((await withKey(adminKey)).status).toBe(401);
      const full = (await owner.call('GET', '/api/auth/organization/get-full-organization')).body;
      const memberId = full.members.find((m: { user: { email: string } }) => m.user.email === other.email).id;
      expect(
        (await owner.call('POST', '/api/auth/organization/update-member-role', { memberId, role: 'member' })).status,
      ).toBe(200);
      expect((await withKey(otherKey)).status).toBe(401);
      expect((await withKey(ownerKey)).status).toBe(200);
    });

    it('each key can ask which key it is (its scope); a session is answered 404', async () => {
      const owner = await target().accounts.signUp();
      const org = await target().accounts.createOrg(owner);
      for (const scope of ['read', 'write'] as const) {
        const key = await target().accounts.createApiKey(owner, scope);
        const res = await withKey(key, 'GET', '/api/v1/api-keys/current');
        expect(res.status).toBe(200);
        const body = (await res.json()) as { id: string; organizationId: string; scope: string };
        expect(body).toMatchObject({ scope, organizationId: org.id });
        const listed = (await owner.call('GET', '/api/v1/api-keys')).body.data as { id: string; scope: string }[];
        expect(listed.find((k) => k.id === body.id)?.scope).toBe(scope);
      }
      expect((await owner.call('GET', '/api/v1/api-keys/current')).status).toBe(404);
    });

    it('cannot manage keys or act as a user', async () => {
      const owner = await target().accounts.signUp();
      await target().accounts.createOrg(owner);
      const write = await target().accounts.createApiKey(owner, 'write');
      expect((await withKey(write, 'POST', '/api/v1/api-keys', { name: 'x', scope: 'write' })).status).toBe(403);
      expect((await withKey(write, 'GET', '/api/v1/session')).status).toBe(403);
      expect((await withKey('fg_not-a-real-key')).status).toBe(401);
    });
  });

  describe('the dashboard calls of spec §7', () => {
    it('form id by slug, forms (name, slug), submissions with a numeric limit, session, flag, email quota', async () => {
      const owner = await target().accounts.signUp();
      await target().accounts.createOrg(owner);
      const form = (await owner.call('POST', '/api/v1/forms', { name: 'Contact us', slug: 'contact-us' })).body;
      const bySlug = await owner.call('GET', '/api/v1/forms?slug=contact-us');
      expect(bySlug.body.data.map((f: { id: string }) => f.id)).toEqual([form.id]);
      expect((await owner.call('GET', '/api/v1/forms?slug=nope')).body.data).toEqual([]);
      expect((await owner.call('GET', '/api/v1/forms')).body.data[0]).toMatchObject({
        name: 'Contact us',
        slug: 'contact-us',
      });
      expect((await owner.call('GET', `/api/v1/forms/${form.id}/submissions?limit=5`)).body).toEqual({
        data: [],
        nextCursor: null,
      });
      expect((await owner.call('GET', `/api/v1/forms/${form.id}/submissions?limit=many`)).status).toBe(400);
      expect((await owner.call('GET', '/api/v1/billing/email-quota')).body).toEqual({ used: 0, max: 1000 });
      expect((await owner.call('GET', '/api/v1/flags/emailManagement')).body).toEqual({
        flag: 'emailManagement',
        enabled: false,
      });
    });
  });

  describe('CSRF and content types on session mutations', () => {
    it('refuses another origin, a cross-site fetch, and non-JSON bodies', async () => {
      const owner = await target().accounts.signUp();
      await target().accounts.createOrg(owner);
      const evil = await owner.call('POST', '/api/v1/forms', { name: 'x' }, { origin: 'https://evil.example' });
      expect(evil.status).toBe(403);
      expect(evil.body.error.code).toBe('CSRF_REJECTED');
      const crossSite = await owner.call('POST', '/api/v1/forms', { name: 'x' }, { 'sec-fetch-site': 'cross-site' });
      expect(crossSite.status).toBe(403);
      const cookie = [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const form = await fetch(`${target().baseUrl}/api/v1/forms`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'name=x',
      });
      expect(form.status).toBe(415);
      expect((await owner.call('GET', '/api/v1/forms')).body.data).toEqual([]);
    });

    it('applies better-auth’s own origin check to /api/auth mutations, even under NODE_ENV=test', async () => {
      const owner = await target().accounts.signUp();
      const org = await target().accounts.createOrg(owner, 'Origin');
      const hijack = await owner.call(
        'POST',
        '/api/auth/organization/update',
        { organizationId: org.id, data: { name: 'Pwned' } },
        { origin: 'https://evil.example' },
      );
      expect(hijack.status).toBe(403);
      expect((await owner.call('GET', '/api/auth/organization/get-full-organization')).body.name).toBe('Origin');
    });

    it('answers a malformed percent-encoding with 400, not 500', async () => {
      const owner = await target().accounts.signUp();
      await target().accounts.createOrg(owner);
      const reply = await owner.call('GET', '/api/v1/forms/%E0%A4%A');
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('MALFORMED_PATH');
    });

    it('answers unknown API paths 404 and wrong methods 405 with Allow, as JSON', async () => {
      const owner = await target().accounts.signUp();
      expect((await owner.call('GET', '/api/v1/nothing-here')).status).toBe(404);
      const wrong = await owner.call('DELETE', '/api/v1/forms');
      expect(wrong.status).toBe(405);
      expect(wrong.body.error.code).toBe('METHOD_NOT_ALLOWED');
      expect(wrong.headers.get('allow')).toBe('GET, HEAD, POST');
      const one = await owner.call('PUT', '/api/v1/forms/some-form/submissions/some-id');
      expect(one.status).toBe(405);
      expect(one.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE');
    });
  });
}
