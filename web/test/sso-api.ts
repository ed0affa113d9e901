import { SSO_REQUIRED_MESSAGE } from '@formgate/contracts';
import type { SessionData } from '../src/features/session/session.queries.ts';
import type { ApiHandler, RecordedRequest } from './api-server.ts';

export const ORG = { id: 'org1', name: 'Acme', slug: 'acme' };
export const DOMAIN = 'acme.test';
export const ISSUER = 'https://login.acme.test';
/** The token the stand-in hands out for the domain's TXT record. */
export const TOKEN = 'tok3nTOK3Ntok3nTOK3Ntok3';
/**
 * Where the stand-in sends the browser to sign in at the identity provider: the page's own address with a fragment,
 * because jsdom navigates only within the page. The test then sees the browser go where the server said.
 */
export const IDP_FRAGMENT = '#signing-in-at-the-identity-provider';

/** An identity provider as the stand-in stores it. */
export interface StoredProvider {
  providerId: string;
  issuer: string;
  domain: string;
  organizationId: string;
  domainVerified: boolean;
  defaultRole: string;
  clientId: string;
}

/** What the stand-in knows: the session, the member's role, the organization's provider and setting, the DNS. */
export interface SsoWorld {
  signedIn: boolean;
  role: string;
  requireSso: boolean;
  requireTwoFactor: boolean;
  twoFactorEnabled: boolean;
  /** The organization whose identity provider started the session (`session.ssoOrganizationId`). */
  ssoOrganizationId: string | null;
  provider: StoredProvider | null;
  /** The TXT records the DNS answers, by name. */
  txt: Map<string, string[]>;
}

export const aWorld = (over: Partial<SsoWorld> = {}): SsoWorld => ({
  signedIn: true,
  role: 'owner',
  requireSso: false,
  requireTwoFactor: false,
  twoFactorEnabled: false,
  ssoOrganizationId: null,
  provider: null,
  txt: new Map(),
  ...over,
});

/** A provider of `org1` for `acme.test`, its domain verified or not. */
export const aProvider = (over: Partial<StoredProvider> = {}): StoredProvider => ({
  providerId: 'acme-k3x9qa',
  issuer: ISSUER,
  domain: DOMAIN,
  organizationId: ORG.id,
  domainVerified: false,
  defaultRole: 'member',
  clientId: 'formgate-client-7731',
  ...over,
});

export const txtNameOf = (p: StoredProvider) => `_formgate-verification-${p.providerId}.${p.domain}`;
export const txtValueOf = (p: StoredProvider) => `_formgate-verification-${p.providerId}=${TOKEN}`;

const at = '2026-11-01T10:00:00.000Z';

export const sessionOf = (world: SsoWorld): SessionData => ({
  user: {
    id: 'u1',
    email: 'ada@example.com',
    name: 'Ada',
    emailVerified: true,
    twoFactorEnabled: world.twoFactorEnabled,
  },
  session: { activeOrganizationId: ORG.id, token: 'tok-here', ssoOrganizationId: world.ssoOrganizationId },
});

const organizationOf = (world: SsoWorld) => ({
  ...ORG,
  createdAt: at,
  requireTwoFactor: world.requireTwoFactor,
  requireSso: world.requireSso,
});

const refused = (status: number, code: string, message: string) => ({ status, body: { code, message } });
const isOwner = (world: SsoWorld) => world.role.split(',').includes('owner');
/** The gateway's policy (`sign-in-policy.ts`): single sign-on for all but owners, when required. */
const blocked = (world: SsoWorld) => world.requireSso && world.ssoOrganizationId !== ORG.id && !isOwner(world);
const bodyOf = (req: RecordedRequest) => (req.body ?? {}) as Record<string, unknown>;

/** A provider as better-auth lists it (no secret, the client id's end), with the server's own address in it. */
const listed = (p: StoredProvider, serverUrl: string) => ({
  providerId: p.providerId,
  type: 'oidc',
  issuer: p.issuer,
  domain: p.domain,
  organizationId: p.organizationId,
  domainVerified: p.domainVerified,
  defaultRole: p.defaultRole,
  oidcConfig: {
    clientIdLastFour: `****${p.clientId.slice(-4)}`,
    pkce: true,
    discoveryEndpoint: `${p.issuer}/.well-known`,
  },
  spMetadataUrl: `${serverUrl}/api/auth/sso/saml2/sp/metadata?providerId=${encodeURIComponent(p.providerId)}`,
});

/** Another organization's provider, which the user also manages: the screen must not take it for this one's. */
const OTHER_ORGS_PROVIDER = aProvider({ providerId: 'globex-aaaaaa', organizationId: 'org2', domain: 'globex.test' });

/** `/sso/register` as the gateway answers it: one provider per organization, OpenID Connect, a discovery that works. */
function register(world: SsoWorld, req: RecordedRequest, serverUrl: string) {
  const body = bodyOf(req) as {
    providerId: string;
    issuer: string;
    domain: string;
    organizationId: string;
    defaultRole?: string;
    oidcConfig: { clientId: string };
  };
  if (world.provider)
    return refused(409, 'SSO_PROVIDER_EXISTS', 'This organization has an identity provider already: remove it first');
  if (body.domain === 'taken.test')
    return refused(409, 'SSO_DOMAIN_TAKEN', 'Another organization has verified taken.test');
  if (body.issuer.includes('no-discovery'))
    return refused(
      400,
      'discovery_not_found',
      'OIDC discovery endpoint not found. The issuer may not support OIDC discovery, or the URL is incorrect.',
    );
  world.provider = {
    providerId: body.providerId,
    issuer: body.issuer,
    domain: body.domain,
    organizationId: body.organizationId,
    domainVerified: false,
    defaultRole: body.defaultRole ?? 'member',
    clientId: body.oidcConfig.clientId,
  };
  return {
    body: {
      ...listed(world.provider, serverUrl),
      redirectURI: `${serverUrl}/api/auth/sso/callback/${body.providerId}`,
      domainVerificationToken: TOKEN,
    },
  };
}

/** better-auth's SSO endpoints over `world` (changed as the calls succeed). */
function ssoEndpoints(world: SsoWorld, req: RecordedRequest, serverUrl: string) {
  const provider = world.provider;
  const mine = provider && bodyOf(req).providerId === provider.providerId ? provider : null;
  switch (req.path) {
    case '/api/auth/sso/providers':
      return {
        body: {
          providers: [OTHER_ORGS_PROVIDER, ...(provider ? [provider] : [])].map((p) => listed(p, serverUrl)),
        },
      };
    case '/api/auth/sso/register':
      return register(world, req, serverUrl);
    case '/api/auth/sso/request-domain-verification':
      if (!mine) return refused(404, 'PROVIDER_NOT_FOUND', 'Provider not found');
      return { status: 201, body: { domainVerificationToken: TOKEN } };
    case '/api/auth/sso/verify-domain':
      if (!mine) return refused(404, 'PROVIDER_NOT_FOUND', 'Provider not found');
      if (!world.txt.get(txtNameOf(mine))?.includes(txtValueOf(mine)))
        return refused(
          502,
          'DOMAIN_VERIFICATION_FAILED',
          `Unable to verify domain ownership for ${mine.domain}. Try again later`,
        );
      mine.domainVerified = true;
      return { status: 204 };
    case '/api/auth/sso/delete-provider':
      if (!mine) return refused(404, 'PROVIDER_NOT_FOUND', 'Provider not found');
      if (world.requireSso)
        return refused(
          409,
          'SSO_REQUIRED_BY_ORGANIZATION',
          'Members must sign in with single sign-on: turn that off before you remove the provider',
        );
      world.provider = null;
      return { body: { success: true } };
    default:
      return undefined;
  }
}

/** `/sign-in/sso`: by the address's domain or the organization's slug, to the provider whose domain is verified. */
function signInSso(world: SsoWorld, req: RecordedRequest) {
  const body = bodyOf(req) as { email?: string; organizationSlug?: string };
  const provider = world.provider;
  const found =
    provider && (body.organizationSlug === ORG.slug || (body.email && body.email.split('@')[1] === provider.domain))
      ? provider
      : null;
  if (!found) return refused(404, 'NO_PROVIDER_FOUND_FOR_THE_ISSUER', 'No provider found for the issuer');
  if (!found.domainVerified)
    return refused(401, 'PROVIDER_DOMAIN_HAS_NOT_BEEN_VERIFIED', 'Provider domain has not been verified');
  return { body: { url: new URL(IDP_FRAGMENT, window.location.href).href, redirect: true } };
}

/** The organization endpoints the dashboard calls, with the setting and the refusals of the gateway's policy. */
function organizationEndpoints(world: SsoWorld, req: RecordedRequest) {
  switch (req.path) {
    case '/api/auth/organization/list':
      return { body: [organizationOf(world)] };
    case '/api/auth/organization/get-active-member':
      return { body: { id: 'm-u1', organizationId: ORG.id, userId: 'u1', role: world.role, createdAt: at } };
    case '/api/auth/organization/get-full-organization':
      if (blocked(world)) return refused(403, 'SSO_REQUIRED', SSO_REQUIRED_MESSAGE);
      return { body: { ...organizationOf(world), members: [], invitations: [], teams: [] } };
    case '/api/auth/organization/update': {
      const data = (req.body as { data: { requireSso?: boolean } }).data;
      if (data.requireSso === true && !world.provider?.domainVerified)
        return refused(
          400,
          'SSO_NOT_SET_UP',
          'Connect an identity provider and verify its domain before you require single sign-on',
        );
      if (data.requireSso !== undefined) world.requireSso = data.requireSso;
      return { body: organizationOf(world) };
    }
    default:
      return undefined;
  }
}

/**
 * A stand-in for the gateway's better-auth and `/api/v1` answers around single sign-on, for `startApi`: the session
 * (with `ssoOrganizationId`), the SSO plugin's provider endpoints and its sign-in, the organization with its
 * `requireSso`, and `/api/v1` refusing a member whose session did not come through the provider when it is required.
 */
export function ssoApi(world: SsoWorld, serverUrl: () => string): ApiHandler {
  return (req) => {
    if (req.path === '/api/auth/get-session') return { body: world.signedIn ? sessionOf(world) : null };
    if (req.path === '/api/auth/list-sessions') return { body: [] };
    if (req.path === '/api/auth/passkey/list-user-passkeys') return { body: [] };
    if (req.path === '/api/auth/sign-in/sso') return signInSso(world, req);
    if (req.path.startsWith('/api/auth/sso/')) return ssoEndpoints(world, req, serverUrl());
    if (req.path.startsWith('/api/auth/organization/')) return organizationEndpoints(world, req);
    if (req.path.startsWith('/api/v1/') && blocked(world))
      return { status: 403, body: { error: { code: 'SSO_REQUIRED', message: SSO_REQUIRED_MESSAGE } } };
    if (req.path === '/api/v1/forms') return { body: { data: [] } };
    if (req.path === '/api/v1/api-keys') return { body: { data: [] } };
    if (req.path === '/api/v1/orgs/settings')
      return { body: { submission_notification_email: null, email_management: false } };
    return undefined;
  };
}
