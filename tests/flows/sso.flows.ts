import { randomUUID } from 'node:crypto';
import { freePort } from '@formgate/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Accounts, createAccounts } from '../harness/accounts.ts';
import { type BrowserSession, createBrowserSession } from '../harness/browser-session.ts';
import { startDnsServer, type TestDnsServer } from '../harness/dns-server.ts';
import { eventually } from '../harness/embedded-app.ts';
import { CookieJar, followRedirects } from '../harness/oidc-flow.ts';
import { startTestIdp, type TestIdp } from '../harness/oidc-idp.ts';
import type { ExtraGateway, TargetRef } from './target.ts';

interface Registered {
  providerId: string;
  domain: string;
  orgId: string;
  owner: BrowserSession & { email: string };
  token: string;
}

/**
 * Single sign-on through an organization's OpenID Connect provider (better-auth's SSO plugin), run in both modes
 * against a real OpenID provider in the test (`oidc-provider`) and a DNS server answering the verification record.
 * The gateway under test is one of its own, started with the provider's origin trusted (it is on loopback) and the
 * test's DNS server: the suite's main gateway keeps the production defaults, under which a loopback provider is
 * refused.
 */
export function describeSsoFlows(target: TargetRef) {
  let idp: TestIdp;
  let dns: TestDnsServer;
  let gateway: ExtraGateway;
  let accounts: Accounts;

  beforeAll(async () => {
    idp = await startTestIdp();
    dns = await startDnsServer();
    const port = await freePort();
    gateway = await target().startGateway({
      SSO_TRUSTED_IDP_ORIGINS: idp.origin,
      DNS_SERVERS: dns.address,
      // Embedded: links and the provider's redirect URI on the address the test calls (the default is localhost).
      ...(target().mode === 'embedded' ? { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
    });
    accounts = createAccounts(gateway.baseUrl, gateway.mailLink);
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    await idp?.stop();
    await dns?.stop();
  });

  /** An organization with its provider registered (domain not verified yet), and the provider's client at the IdP. */
  const register = async (extra: { defaultRole?: string } = {}): Promise<Registered> => {
    const owner = await accounts.signUp();
    const org = await accounts.createOrg(owner);
    const providerId = `acme-${randomUUID().slice(0, 8)}`;
    const domain = `${providerId}.test`;
    const clientSecret = randomUUID();
    const reply = await owner.call('POST', '/api/auth/sso/register', {
      providerId,
      issuer: idp.issuer,
      domain,
      organizationId: org.id,
      oidcConfig: { clientId: providerId, clientSecret, pkce: true },
      ...extra,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const body = reply.body as { redirectURI: string; domainVerificationToken: string; domainVerified: boolean };
    expect(body.domainVerified).toBe(false);
    expect(body.redirectURI).toBe(`${gateway.baseUrl}/api/auth/sso/callback/${providerId}`);
    idp.setClient({ clientId: providerId, clientSecret, redirectUris: [body.redirectURI] });
    return { providerId, domain, orgId: org.id, owner, token: body.domainVerificationToken };
  };
  const txtName = (r: Registered) => `_formgate-verification-${r.providerId}.${r.domain}`;
  const verify = async (r: Registered) => {
    dns.setTxt(txtName(r), [`${txtName(r).split('.')[0]}=${r.token}`]);
    const reply = await r.owner.call('POST', '/api/auth/sso/verify-domain', { providerId: r.providerId });
    expect(reply.status, JSON.stringify(reply.body)).toBe(204);
  };
  /** Signs in through the provider as `email`, the way a browser follows the redirects; the dashboard session. */
  const ssoSignIn = async (email: string, providerId?: string, sub = randomUUID()) => {
    idp.signInAs({ sub, email, name: email.split('@')[0] as string });
    const jar = new CookieJar();
    const start = await fetch(`${gateway.baseUrl}/api/auth/sign-in/sso`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', origin: gateway.baseUrl },
      body: JSON.stringify(
        providerId ? { providerId, callbackURL: '/dashboard' } : { email, callbackURL: '/dashboard' },
      ),
    });
    jar.store(gateway.baseUrl, start);
    const started = (await start.json()) as { url?: string; code?: string; message?: string };
    if (start.status !== 200) return { status: start.status, body: started, browser: null };
    const landed = await followRedirects(started.url as string, jar, `${gateway.baseUrl}/dashboard`);
    const browser = createBrowserSession(gateway.baseUrl);
    for (const pair of jar.header(gateway.baseUrl).split('; ').filter(Boolean)) {
      const eq = pair.indexOf('=');
      browser.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return { status: start.status, body: started, browser, landed: landed.url };
  };
  const sessionOf = async (browser: BrowserSession) =>
    (await browser.call('GET', '/api/v1/session')).body as {
      user: { id: string; email: string; emailVerified: boolean };
      session: { activeOrganizationId: string | null };
      roles: string[];
    };

  describe('single sign-on', () => {
    it('signs nobody in until the domain is verified by its DNS record; then a new user joins the organization as a member', async () => {
      const r = await register();
      const before = await ssoSignIn(`ann@${r.domain}`);
      expect(before.status).toBe(401);

      // No record yet: verification fails and says so.
      const missing = await r.owner.call('POST', '/api/auth/sso/verify-domain', { providerId: r.providerId });
      expect(missing.status).toBe(502);
      expect(missing.body).toMatchObject({ code: 'DOMAIN_VERIFICATION_FAILED' });
      expect(dns.queries).toContain(txtName(r).toLowerCase());
      await verify(r);

      const ann = await ssoSignIn(`ann@${r.domain}`);
      expect(ann.landed).toBe(`${gateway.baseUrl}/dashboard`);
      const session = await sessionOf(ann.browser as BrowserSession);
      expect(session.user.email).toBe(`ann@${r.domain}`);
      // An address in the proved domain needs no verification mail.
      expect(session.user.emailVerified).toBe(true);
      expect(session.session.activeOrganizationId).toBe(r.orgId);
      expect(session.roles).toEqual(['member']);
      const members = await r.owner.call(
        'GET',
        `/api/auth/organization/list-members?organizationId=${encodeURIComponent(r.orgId)}`,
      );
      const emails = (members.body as { members: { user: { email: string } }[] }).members.map((m) => m.user.email);
      expect(emails).toContain(`ann@${r.domain}`);

      // The same address under another subject at the provider: the same account, still one membership.
      const again = await ssoSignIn(`ann@${r.domain}`);
      expect((await sessionOf(again.browser as BrowserSession)).user.id).toBe(session.user.id);
      const after = await r.owner.call(
        'GET',
        `/api/auth/organization/list-members?organizationId=${encodeURIComponent(r.orgId)}`,
      );
      expect((after.body as { members: unknown[] }).members).toHaveLength(2);
    });

    it('links an existing account of the verified domain, and new members join with the role the provider names', async () => {
      const r = await register({ defaultRole: 'admin' });
      await verify(r);

      const existing = await accounts.signUp(`bob@${r.domain}`);
      const own = await sessionOf(existing);
      const bob = await ssoSignIn(`bob@${r.domain}`);
      const linked = await sessionOf(bob.browser as BrowserSession);
      expect(linked.user.id).toBe(own.user.id);
      expect(linked.session.activeOrganizationId).toBe(r.orgId);
      expect(linked.roles).toEqual(['admin']);
    });

    it('routes an address to the provider that verified its domain; only addresses of the domain join the organization', async () => {
      const r = await register();
      await verify(r);
      // A second organization registers the same (already verified) domain: refused outright.
      const squatter = await accounts.signUp();
      const squatterOrg = await accounts.createOrg(squatter);
      const taken = await squatter.call('POST', '/api/auth/sso/register', {
        providerId: `squat-${randomUUID().slice(0, 8)}`,
        issuer: idp.issuer,
        domain: r.domain,
        organizationId: squatterOrg.id,
        oidcConfig: { clientId: 'x', clientSecret: 'y' },
      });
      expect(taken.status).toBe(409);
      expect(taken.body).toMatchObject({ code: 'SSO_DOMAIN_TAKEN' });
      const carol = await ssoSignIn(`carol@${r.domain}`);
      expect((await sessionOf(carol.browser as BrowserSession)).session.activeOrganizationId).toBe(r.orgId);

      // The provider vouches for an address outside the domain: an account, unverified, in no organization.
      const contractor = await ssoSignIn(`contractor-${randomUUID().slice(0, 6)}@elsewhere.test`, r.providerId);
      const theirs = await sessionOf(contractor.browser as BrowserSession);
      expect(theirs.user.emailVerified).toBe(false);
      expect(theirs.roles).toEqual([]);
    });

    it('is configured only by an owner or admin of the organization, and only for an organization, with OpenID Connect', async () => {
      const r = await register();
      const member = await accounts.addMember(r.owner, { id: r.orgId, name: '', slug: '' } as never, 'member');
      const asMember = await member.call('POST', '/api/auth/sso/verify-domain', { providerId: r.providerId });
      expect(asMember.status).toBe(403);
      const outsider = await accounts.signUp();
      await accounts.createOrg(outsider);
      const read = await outsider.call('GET', `/api/auth/sso/get-provider?providerId=${r.providerId}`);
      expect(read.status).toBe(403);
      const removed = await outsider.call('POST', '/api/auth/sso/delete-provider', { providerId: r.providerId });
      expect(removed.status).toBe(403);

      const personal = await r.owner.call('POST', '/api/auth/sso/register', {
        providerId: `me-${randomUUID().slice(0, 8)}`,
        issuer: idp.issuer,
        domain: 'personal.test',
        oidcConfig: { clientId: 'x', clientSecret: 'y' },
      });
      expect(personal.body).toMatchObject({ code: 'SSO_ORGANIZATION_REQUIRED' });
      const second = await r.owner.call('POST', '/api/auth/sso/register', {
        providerId: `two-${randomUUID().slice(0, 8)}`,
        issuer: idp.issuer,
        domain: 'second.test',
        organizationId: r.orgId,
        oidcConfig: { clientId: 'x', clientSecret: 'y' },
      });
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ code: 'SSO_PROVIDER_EXISTS' });
      const owner = await accounts.signUp();
      const org = await accounts.createOrg(owner);
      const saml = await owner.call('POST', '/api/auth/sso/register', {
        providerId: `saml-${randomUUID().slice(0, 8)}`,
        issuer: idp.issuer,
        domain: 'saml.test',
        organizationId: org.id,
        samlConfig: { entryPoint: `${idp.origin}/saml`, cert: 'x' },
      });
      expect(saml.body).toMatchObject({ code: 'SSO_OIDC_ONLY' });
      const ownerRole = await owner.call('POST', '/api/auth/sso/register', {
        providerId: `role-${randomUUID().slice(0, 8)}`,
        issuer: idp.issuer,
        domain: 'role.test',
        organizationId: org.id,
        defaultRole: 'owner',
        oidcConfig: { clientId: 'x', clientSecret: 'y' },
      });
      expect(ownerRole.body).toMatchObject({ code: 'SSO_INVALID_DEFAULT_ROLE' });
    });

    it('a gateway without the provider trusted refuses a provider on a private address', async () => {
      const main = target().accounts;
      const owner = await main.signUp();
      const org = await main.createOrg(owner);
      const reply = await owner.call('POST', '/api/auth/sso/register', {
        providerId: `private-${randomUUID().slice(0, 8)}`,
        issuer: idp.issuer,
        domain: 'private.test',
        organizationId: org.id,
        oidcConfig: { clientId: 'x', clientSecret: 'y' },
      });
      expect(reply.status).toBe(400);
    });

    it('"members must sign in with single sign-on": needs a verified provider; then password sessions of members are refused, owners excepted', async () => {
      const r = await register();
      const early = await r.owner.call('POST', '/api/auth/organization/update', {
        organizationId: r.orgId,
        data: { requireSso: true },
      });
      expect(early.status).toBe(400);
      expect(early.body).toMatchObject({ code: 'SSO_NOT_SET_UP' });
      await verify(r);
      const passwordMember = await accounts.addMember(r.owner, { id: r.orgId, name: '', slug: '' } as never, 'member');
      const dave = await ssoSignIn(`dave@${r.domain}`);
      const on = await r.owner.call('POST', '/api/auth/organization/update', {
        organizationId: r.orgId,
        data: { requireSso: true },
      });
      expect(on.status, JSON.stringify(on.body)).toBe(200);

      const refused = await passwordMember.call('GET', '/api/v1/forms');
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: { code: 'SSO_REQUIRED' } });
      const members = await passwordMember.call(
        'GET',
        `/api/auth/organization/list-members?organizationId=${encodeURIComponent(r.orgId)}`,
      );
      expect(members.status).toBe(403);
      expect((await (dave.browser as BrowserSession).call('GET', '/api/v1/forms')).status).toBe(200);
      expect((await r.owner.call('GET', '/api/v1/forms')).status).toBe(200);
    });

    it('the audit log shows who connected the provider, verified the domain, required it, and who signed in through it', async () => {
      const r = await register();
      await verify(r);
      await ssoSignIn(`erin@${r.domain}`);
      await r.owner.call('POST', '/api/auth/organization/update', {
        organizationId: r.orgId,
        data: { requireSso: true },
      });
      const entries = await eventually(async () => {
        const page = await r.owner.call('GET', '/api/v1/orgs/audit-log?limit=100');
        const items = (page.body as { data: { type: string; data: Record<string, string> }[] }).data;
        const types = items.map((e) => e.type);
        for (const type of ['sso.provider-registered', 'sso.domain-verified', 'organization.updated'])
          if (!types.includes(type)) throw new Error(`no ${type} yet: ${types.join(', ')}`);
        if (!items.some((e) => e.type === 'user.signed-in' && e.data.method === 'sso'))
          throw new Error('no sign-in by sso yet');
        return items;
      }, target().patienceMs * 4);
      expect(entries.find((e) => e.type === 'sso.domain-verified')?.data).toMatchObject({
        providerId: r.providerId,
        domain: r.domain,
      });
      expect(entries.find((e) => e.type === 'organization.updated' && e.data.requireSso === 'true')).toBeDefined();

      // Removing the provider while members must use it would lock them out: the requirement goes first.
      const locked = await r.owner.call('POST', '/api/auth/sso/delete-provider', { providerId: r.providerId });
      expect(locked.status).toBe(409);
      expect(locked.body).toMatchObject({ code: 'SSO_REQUIRED_BY_ORGANIZATION' });
      await r.owner.call('POST', '/api/auth/organization/update', {
        organizationId: r.orgId,
        data: { requireSso: false },
      });
      const removed = await r.owner.call('POST', '/api/auth/sso/delete-provider', { providerId: r.providerId });
      expect(removed.status).toBe(200);
      await eventually(async () => {
        const page = await r.owner.call('GET', '/api/v1/orgs/audit-log?type=sso.provider-removed');
        if ((page.body as { data: unknown[] }).data.length !== 1) throw new Error('no removal yet');
      }, target().patienceMs * 4);
    });
  });
}
