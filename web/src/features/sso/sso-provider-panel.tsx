import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { CopyButton } from '../../components/copy-button.tsx';
import { Panel } from '../../components/panel.tsx';
import { Button, Notice } from '../../components/ui.tsx';
import { describeError, isApiError } from '../../lib/api.ts';
import { useServices } from '../../lib/app-context.tsx';
import { useVerifySsoDomain } from './sso.mutations.ts';
import {
  domainsOf,
  redirectUriOf,
  type SsoProvider,
  verificationRecord,
  verificationTokenQuery,
} from './sso.queries.ts';

/** A value to copy exactly (a URI, a DNS record's name or value), with its copy button. */
function Copyable({ text, label }: { text: string; label: string }) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <code className="rounded bg-zinc-100 px-2 py-1 font-mono text-xs break-all dark:bg-zinc-800">{text}</code>
      <CopyButton text={text} label={label} />
    </div>
  );
}

function Term({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt className="font-medium">{term}</dt>
      <dd className="min-w-0">{children}</dd>
    </>
  );
}

const DETAILS = 'grid grid-cols-1 gap-x-4 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]';

/** The provider as connected: whether its domain is verified, its issuer, client and domain, and the redirect URI. */
export function SsoProviderPanel({ provider }: { provider: SsoProvider }) {
  const clientEnd = provider.oidcConfig?.clientIdLastFour;
  return (
    <Panel title="Identity provider">
      <p className="text-sm">
        Status: <strong>{provider.domainVerified ? 'Verified' : 'Domain not verified'}</strong>
      </p>
      <dl className={DETAILS}>
        <Term term="Issuer">
          <span className="break-all">{provider.issuer}</span>
        </Term>
        <Term term="Email domain">{domainsOf(provider).join(', ')}</Term>
        {clientEnd ? (
          <Term term="Client ID">
            <span className="font-mono">{clientEnd}</span>
          </Term>
        ) : null}
        <Term term="New members join as">{provider.defaultRole === 'admin' ? 'Admin' : 'Member'}</Term>
        <Term term="Redirect URI">
          <Copyable text={redirectUriOf(provider)} label="Copy the redirect URI" />
        </Term>
      </dl>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Give your identity provider this redirect URI (also called the sign-in redirect or callback URL): it sends
        people back there once they have signed in.
      </p>
    </Panel>
  );
}

/** Why the domain was not verified, as the panel says it. */
function verifyError(err: unknown): string {
  if (isApiError(err) && err.code === 'DOMAIN_VERIFICATION_FAILED')
    return 'The TXT record was not found yet. DNS changes can take a few minutes to show, sometimes hours: check its name and value, then try again.';
  if (isApiError(err) && err.code === 'NO_PENDING_VERIFICATION')
    return 'The verification token expired. Publish the new value shown above, then verify again.';
  return describeError(err);
}

/**
 * Not verified yet: the DNS TXT record that proves the domain (its name and value, each to copy), and "Verify
 * domain", which asks the server to look it up. Until then nobody signs in through the provider.
 */
export function SsoDomainPanel({ provider }: { provider: SsoProvider }) {
  const token = useQuery(verificationTokenQuery(useServices(), provider.providerId));
  const verify = useVerifySsoDomain(provider.providerId);
  const domains = domainsOf(provider);
  const several = domains.length > 1;
  return (
    <Panel
      title="Verify your domain"
      description="Add this TXT record at your domain's DNS provider, then verify it here. Until the domain is verified, nobody can sign in through the identity provider."
    >
      {token.isPending ? <p className="text-sm">Loading…</p> : null}
      {token.isError ? (
        <Notice tone="error">The verification record could not be loaded: {describeError(token.error)}</Notice>
      ) : null}
      {token.data
        ? domains.map((domain) => {
            const record = verificationRecord(provider.providerId, domain, token.data);
            const of = several ? ` for ${domain}` : '';
            return (
              <dl key={domain} aria-label={`TXT record${of}`} className={DETAILS}>
                <Term term="Type">TXT</Term>
                <Term term="Name">
                  <Copyable text={record.name} label={`Copy the record name${of}`} />
                </Term>
                <Term term="Value">
                  <Copyable text={record.value} label={`Copy the record value${of}`} />
                </Term>
              </dl>
            );
          })
        : null}
      {verify.error ? <Notice tone="error">{verifyError(verify.error)}</Notice> : null}
      <div>
        <Button disabled={verify.isPending || !token.data} onClick={() => verify.mutate()}>
          {verify.isPending ? 'Looking for the record…' : 'Verify domain'}
        </Button>
      </div>
    </Panel>
  );
}
