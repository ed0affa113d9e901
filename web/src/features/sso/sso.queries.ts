import { queryOptions } from '@tanstack/react-query';
import { z } from 'zod';
import { type AppServices, unwrap } from '../../lib/app-context.tsx';

/*
 * The organization's identity provider for single sign-on, through better-auth's SSO plugin (`auth.sso.*`): owners
 * and admins only, the server checks.
 */

export const ssoKeys = {
  providers: ['sso', 'providers'] as const,
  verificationToken: (providerId: string) => ['sso', 'verification-token', providerId] as const,
};

/** An identity provider as better-auth lists it: never its client secret, only its client id's last characters. */
export interface SsoProvider {
  providerId: string;
  issuer: string;
  /** One domain, or several separated by commas. */
  domain: string;
  organizationId: string | null;
  domainVerified: boolean;
  /** The role people join the organization with when they first sign in through it. */
  defaultRole?: string | null;
  oidcConfig?: { clientIdLastFour?: string } | undefined;
  /** `<server's auth URL>/sso/saml2/sp/metadata?providerId=…`: where the server's own address is read from. */
  spMetadataUrl: string;
}

/**
 * The active organization's identity provider, or null (`GET /api/auth/sso/providers` lists every provider the user
 * manages, in any of their organizations).
 */
export const ssoProviderQuery = ({ auth }: AppServices, organizationId: string) =>
  queryOptions({
    queryKey: ssoKeys.providers,
    queryFn: async () => unwrap(await auth.sso.providers()).providers as SsoProvider[],
    select: (providers) => providers.find((p) => p.organizationId === organizationId) ?? null,
  });

/**
 * The token the domain's TXT record must hold (`POST /api/auth/sso/request-domain-verification`): the pending one
 * again, or a new one when it expired (after 7 days). Asked once per visit; registering seeds it.
 */
export const verificationTokenQuery = ({ auth }: AppServices, providerId: string) =>
  queryOptions({
    queryKey: ssoKeys.verificationToken(providerId),
    queryFn: async () =>
      unwrap(await auth.sso.requestDomainVerification({ providerId })).domainVerificationToken as string,
    staleTime: Number.POSITIVE_INFINITY,
  });

/** The domains of a provider, as its `domain` lists them. */
export const domainsOf = (provider: Pick<SsoProvider, 'domain'>) =>
  provider.domain
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean);

/**
 * The DNS TXT record that proves `domain` for the provider (better-auth's SSO plugin with the token prefix
 * `formgate-verification`): its name, and its value (the record's label, "=", the token; the token alone works too).
 */
export function verificationRecord(providerId: string, domain: string, token: string) {
  const label = `_formgate-verification-${providerId}`;
  return { name: `${label}.${domain}`, value: `${label}=${token}` };
}

/**
 * Where the identity provider sends people back (`<server's auth URL>/sso/callback/<providerId>`), which it must
 * know: read from the server's own address in `spMetadataUrl`, the page's otherwise.
 */
export function redirectUriOf(provider: Pick<SsoProvider, 'providerId' | 'spMetadataUrl'>): string {
  const at = provider.spMetadataUrl.indexOf('/sso/saml2/sp/metadata');
  const base = at === -1 ? `${window.location.origin}/api/auth` : provider.spMetadataUrl.slice(0, at);
  return `${base}/sso/callback/${encodeURIComponent(provider.providerId)}`;
}

/**
 * A new provider's id: the organization's slug and a random suffix (ids are unique on the instance). It names the
 * DNS record, whose first label (`_formgate-verification-<id>`) DNS limits to 63 characters: at most 40 here.
 */
export function newProviderId(slug: string, random = Math.random().toString(36).slice(2, 8).padEnd(6, '0')): string {
  const base =
    slug
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, 33)
      .replace(/^-+|-+$/g, '') || 'org';
  return `${base}-${random}`;
}

/** A domain name (labels of letters, digits and dashes), lowercased: `acme.com`, `mail.example.co.uk`. */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** The form that connects an identity provider (OpenID Connect). */
export const SsoProviderFormSchema = z.object({
  issuer: z
    .string()
    .trim()
    .pipe(z.url({ protocol: /^https?$/, error: 'Enter the issuer URL, like https://login.example.com' })),
  clientId: z.string().trim().min(1, 'Enter the client ID').max(500),
  clientSecret: z.string().min(1, 'Enter the client secret').max(2000),
  domain: z.string().trim().toLowerCase().regex(DOMAIN, 'Enter the domain of your addresses, like example.com'),
  defaultRole: z.enum(['member', 'admin']),
});
export type SsoProviderForm = z.infer<typeof SsoProviderFormSchema>;
