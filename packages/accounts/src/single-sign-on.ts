import { sso } from '@better-auth/sso';
import type { Logger } from '@formgate/kit';
import { type BetterAuthPlugin, getCurrentAdapter } from 'better-auth';
import { APIError, createAuthMiddleware } from 'better-auth/api';
import { REQUIRE_SSO_FIELD, SSO_SESSION_FIELD } from './sign-in-policy.ts';

/** The provider column holding the role a user joins the provider's organization with (`member` or `admin`). */
export const SSO_DEFAULT_ROLE_FIELD = 'defaultRole';
const JOINABLE_ROLES = new Set(['member', 'admin']);
/**
 * The DNS name an organization proves its domain with is `_formgate-verification-<providerId>.<domain>`, a TXT
 * record holding the token `/sso/register` (or `/sso/request-domain-verification`) returned.
 */
export const SSO_VERIFICATION_PREFIX = 'formgate-verification';

interface SsoAdapter {
  findOne<T>(q: { model: string; where: { field: string; value: string }[] }): Promise<T | null>;
  findMany<T>(q: { model: string; where?: { field: string; value: string }[] }): Promise<T[]>;
}
interface ProviderRow {
  providerId: string;
  organizationId?: string | null;
  domain: string;
  domainVerified?: boolean;
  [SSO_DEFAULT_ROLE_FIELD]?: string | null;
}

export interface SingleSignOnSettings {
  logger: Logger;
  /**
   * Adds a user to an organization through the organization plugin, so that its hooks record `member.added` and
   * apply the plan's members limit. Refuses (throws) a user who is a member already.
   */
  addMember: (member: { userId: string; organizationId: string; role: string }) => Promise<unknown>;
}

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

const providerDomains = (p: ProviderRow) =>
  p.domain
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);

/** The verified provider for an email domain (one organization per verified domain: `/sso/register` sees to it). */
async function verifiedProviderFor(adapter: SsoAdapter, domain: string): Promise<ProviderRow | null> {
  const providers = await adapter.findMany<ProviderRow>({ model: 'ssoProvider' });
  return providers.find((p) => p.domainVerified === true && providerDomains(p).includes(domain)) ?? null;
}

type HookContext =
  | { path?: string; params?: Record<string, unknown>; context: { adapter: unknown } }
  | null
  | undefined;

/** better-auth's SSO callbacks (OpenID Connect, and SAML's ACS), where the plugin creates the session. */
export const isSsoCallbackPath = (path: string | undefined) =>
  !!path && (path.startsWith('/sso/callback') || path.startsWith('/sso/saml2/sp/acs'));

const providerOfPath = (ctx: HookContext) => {
  if (!isSsoCallbackPath(ctx?.path)) return null;
  const id = ctx?.params?.providerId;
  return typeof id === 'string' && id ? id : null;
};

/** The provider whose callback is being answered, read in the callback's transaction (on SQLite another call would wait for it forever). */
async function callbackProvider(ctx: HookContext): Promise<ProviderRow | null> {
  const providerId = providerOfPath(ctx);
  if (!providerId || !ctx) return null;
  const adapter = (await getCurrentAdapter(ctx.context.adapter as never)) as unknown as SsoAdapter;
  return adapter.findOne<ProviderRow>({ model: 'ssoProvider', where: [{ field: 'providerId', value: providerId }] });
}

/**
 * Single sign-on through an organization's OpenID Connect provider (issue 32), with better-auth's SSO plugin:
 * - an owner or admin registers the organization's provider (`/sso/register` with `organizationId`; one per
 *   organization), then proves the email domain with a DNS TXT record (`/sso/verify-domain`); until then nobody
 *   signs in through it;
 * - a sign-in by email (`/sign-in/sso`) goes to the provider that verified the address's domain;
 * - whoever signs in through it with an address of the domain joins the organization, if not a member yet (also
 *   after an admin removed them: access ends at the provider), with the provider's default role
 *   (`member` unless the provider says `admin`), through the organization plugin (events, members limit); an
 *   existing account is linked only when its address is in the verified domain (the plugin's rule);
 * - the session remembers the organization whose provider created it (`ssoOrganizationId`) and starts in it: the
 *   setting "members must sign in with single sign-on" (`sign-in-policy.ts`) reads it.
 * Provider endpoints must be public addresses, or origins the operator trusts (`SSO_TRUSTED_IDP_ORIGINS`).
 */
export function singleSignOnPlugins(s: SingleSignOnSettings): BetterAuthPlugin[] {
  const joinOrganization = async (user: { id: string; email: string }, provider: ProviderRow) => {
    // Only addresses of the domain the organization proved join it; others the provider lets in get an account of
    // their own and no organization.
    if (!provider.organizationId || !providerDomains(provider).includes(domainOf(user.email))) return;
    const role = JOINABLE_ROLES.has(provider[SSO_DEFAULT_ROLE_FIELD] ?? '')
      ? (provider[SSO_DEFAULT_ROLE_FIELD] as string)
      : 'member';
    try {
      await s.addMember({ userId: user.id, organizationId: provider.organizationId, role });
    } catch (err) {
      const code = (err as { body?: { code?: string } }).body?.code;
      if (code === 'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION') return;
      // The sign-in stands (the provider vouched for the user); the dashboard shows them no organization.
      s.logger.warn({ err, providerId: provider.providerId }, 'single sign-on user not added to the organization');
    }
  };
  return [
    sso({
      domainVerification: { enabled: true, tokenPrefix: SSO_VERIFICATION_PREFIX },
      // Formgate adds members itself (`joinOrganization`), through the organization plugin's hooks.
      organizationProvisioning: { disabled: true },
      provisionUserOnEveryLogin: true,
      provisionUser: ({ user, provider }) => joinOrganization(user, provider as unknown as ProviderRow),
      schema: {
        ssoProvider: {
          additionalFields: {
            [SSO_DEFAULT_ROLE_FIELD]: { type: 'string', required: false, defaultValue: 'member', input: true },
          },
        },
      },
    }),
    ssoPolicyPlugin(),
  ];
}

/**
 * Formgate's rules around the SSO plugin's endpoints, and the session it creates.
 */
function ssoPolicyPlugin() {
  return {
    id: 'formgate-sso-policy',
    init: () => ({
      options: {
        databaseHooks: {
          user: {
            create: {
              // An address in the domain the organization proved is as verified as a link in a mail could make it:
              // no verification mail, and a later sign-in under another subject links to this account.
              before: async (user: Record<string, unknown>, ctx: HookContext) => {
                const provider = await callbackProvider(ctx);
                const email = typeof user.email === 'string' ? user.email : '';
                if (provider?.domainVerified === true && providerDomains(provider).includes(domainOf(email)))
                  return { data: { ...user, emailVerified: true } };
              },
            },
          },
          session: {
            create: {
              before: async (session: Record<string, unknown>, ctx: HookContext) => {
                const provider = await callbackProvider(ctx);
                if (!provider?.organizationId) return;
                return {
                  data: {
                    ...session,
                    [SSO_SESSION_FIELD]: provider.organizationId,
                    activeOrganizationId: provider.organizationId,
                  },
                };
              },
            },
          },
        },
      },
    }),
    schema: {
      session: { fields: { [SSO_SESSION_FIELD]: { type: 'string', required: false, input: false } } },
    },
    hooks: {
      before: [
        {
          matcher: (ctx) => ctx.path === '/sso/register',
          handler: createAuthMiddleware(async (ctx) => {
            const adapter = ctx.context.adapter as unknown as SsoAdapter;
            const body = (ctx.body ?? {}) as { organizationId?: unknown; domain?: unknown; [k: string]: unknown };
            if (typeof body.organizationId !== 'string' || !body.organizationId)
              throw new APIError('BAD_REQUEST', {
                code: 'SSO_ORGANIZATION_REQUIRED',
                message: 'An identity provider belongs to an organization: name it (organizationId)',
              });
            if (body.samlConfig !== undefined || body.oidcConfig === undefined)
              throw new APIError('BAD_REQUEST', {
                code: 'SSO_OIDC_ONLY',
                message: 'Formgate connects OpenID Connect providers: give oidcConfig',
              });
            const role = body[SSO_DEFAULT_ROLE_FIELD];
            if (role !== undefined && !(typeof role === 'string' && JOINABLE_ROLES.has(role)))
              throw new APIError('BAD_REQUEST', {
                code: 'SSO_INVALID_DEFAULT_ROLE',
                message: 'New members can join as member or admin',
              });
            const existing = await adapter.findOne<ProviderRow>({
              model: 'ssoProvider',
              where: [{ field: 'organizationId', value: body.organizationId }],
            });
            if (existing)
              throw new APIError('CONFLICT', {
                code: 'SSO_PROVIDER_EXISTS',
                message: 'This organization has an identity provider already: remove it first',
              });
            const domains =
              typeof body.domain === 'string' ? providerDomains({ domain: body.domain } as ProviderRow) : [];
            for (const domain of domains)
              if (await verifiedProviderFor(adapter, domain))
                throw new APIError('CONFLICT', {
                  code: 'SSO_DOMAIN_TAKEN',
                  message: `Another organization has verified ${domain}`,
                });
          }),
        },
        {
          // Removing the provider while members must sign in through it would lock them out.
          matcher: (ctx) => ctx.path === '/sso/delete-provider',
          handler: createAuthMiddleware(async (ctx) => {
            const adapter = ctx.context.adapter as unknown as SsoAdapter;
            const providerId = (ctx.body as { providerId?: unknown } | undefined)?.providerId;
            if (typeof providerId !== 'string') return;
            const provider = await adapter.findOne<ProviderRow>({
              model: 'ssoProvider',
              where: [{ field: 'providerId', value: providerId }],
            });
            if (!provider?.organizationId) return;
            const org = await adapter.findOne<Record<string, unknown>>({
              model: 'organization',
              where: [{ field: 'id', value: provider.organizationId }],
            });
            if (org?.[REQUIRE_SSO_FIELD] === true)
              throw new APIError('CONFLICT', {
                code: 'SSO_REQUIRED_BY_ORGANIZATION',
                message: 'Members must sign in with single sign-on: turn that off before you remove the provider',
              });
          }),
        },
        {
          // Route an email to the provider that verified its domain: an unverified registration of the same domain
          // (by another organization) must not stand in its way.
          matcher: (ctx) => ctx.path === '/sign-in/sso',
          handler: createAuthMiddleware(async (ctx) => {
            const body = (ctx.body ?? {}) as { email?: unknown; domain?: unknown; providerId?: unknown };
            if (body.providerId) return;
            const domain =
              typeof body.email === 'string'
                ? domainOf(body.email)
                : typeof body.domain === 'string'
                  ? body.domain
                  : '';
            if (!domain) return;
            const provider = await verifiedProviderFor(ctx.context.adapter as unknown as SsoAdapter, domain);
            if (provider) return { context: { body: { ...(ctx.body as object), providerId: provider.providerId } } };
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
