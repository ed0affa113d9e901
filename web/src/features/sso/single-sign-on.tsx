import { useQuery } from '@tanstack/react-query';
import { Panel } from '../../components/panel.tsx';
import { Notice } from '../../components/ui.tsx';
import { describeError } from '../../lib/api.ts';
import { useServices } from '../../lib/app-context.tsx';
import { useOrganization } from '../organization/organization-layout.tsx';
import { useCan } from '../organization/use-can.ts';
import type { FullOrganization } from '../session/session.queries.ts';
import { ssoProviderQuery } from './sso.queries.ts';
import { SsoConnectPanel } from './sso-connect-panel.tsx';
import { SsoDomainPanel, SsoProviderPanel } from './sso-provider-panel.tsx';
import { SsoRemovePanel } from './sso-remove-panel.tsx';
import { SsoRequirementPanel } from './sso-requirement-panel.tsx';

/**
 * `/dashboard/organization/single-sign-on` (issue 32): the organization's OpenID Connect identity provider. Owners
 * and admins (`organization: ['update']`) connect one (issuer, client, email domain, the role new people join
 * with), give it the redirect URI, prove the domain with a DNS TXT record, then may require members to sign in
 * through it; they remove it once that is off. Members are told who can, and whether it is required. The server
 * checks again.
 */
export function SingleSignOnScreen() {
  const organization = useOrganization();
  const { can } = useCan();
  if (!can({ organization: ['update'] }))
    return (
      <Panel title="Single sign-on">
        <Notice>
          <p>Only owners and admins of the organization can set up single sign-on.</p>
          <p className="mt-1">
            {organization.requireSso === true
              ? "Members must sign in with single sign-on, through the organization's identity provider."
              : 'Members need not sign in with single sign-on.'}
          </p>
        </Notice>
      </Panel>
    );
  return <SsoSettings organization={organization} />;
}

/** What the organization's provider calls for: connecting one, or its details, domain, requirement and removal. */
function SsoSettings({ organization }: { organization: FullOrganization }) {
  const provider = useQuery(ssoProviderQuery(useServices(), organization.id));
  if (provider.isPending) return <p>Loading…</p>;
  if (provider.isError)
    return <Notice tone="error">The identity provider could not be loaded: {describeError(provider.error)}</Notice>;
  if (!provider.data) return <SsoConnectPanel organization={organization} />;
  const verified = provider.data.domainVerified;
  return (
    <div className="flex flex-col gap-6">
      <SsoProviderPanel provider={provider.data} />
      {verified ? null : <SsoDomainPanel provider={provider.data} />}
      <SsoRequirementPanel organization={organization} verified={verified} />
      <SsoRemovePanel organization={organization} provider={provider.data} />
    </div>
  );
}
