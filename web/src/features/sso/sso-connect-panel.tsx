import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { fieldOf } from '../../components/form-field.ts';
import { Panel, SelectField } from '../../components/panel.tsx';
import { Notice, SubmitButton, TextField } from '../../components/ui.tsx';
import { describeError, isApiError } from '../../lib/api.ts';
import type { FullOrganization } from '../session/session.queries.ts';
import { useRegisterSsoProvider } from './sso.mutations.ts';
import { type SsoProviderForm, SsoProviderFormSchema } from './sso.queries.ts';

/** The issuer's discovery failed (not found, not OpenID Connect, on a private address…): better-auth's codes. */
const isDiscoveryFailure = (err: unknown) =>
  isApiError(err) && /^(discovery_|issuer_mismatch|oidc_endpoint_redirect)/.test(err.code ?? '');

/** Why the provider was not connected, as the form says it. */
function connectError(err: unknown): string {
  if (isDiscoveryFailure(err)) return `Formgate could not use this issuer. ${describeError(err)}`;
  return describeError(err);
}

/**
 * No provider yet: the form that connects one. The client secret goes to the server once and is never shown again;
 * the provider's id is made from the organization's slug (it names the DNS record), so nobody has to invent one.
 */
export function SsoConnectPanel({ organization }: { organization: FullOrganization }) {
  const form = useForm<SsoProviderForm>({
    resolver: zodResolver(SsoProviderFormSchema),
    defaultValues: { issuer: '', clientId: '', clientSecret: '', domain: '', defaultRole: 'member' },
  });
  const register = useRegisterSsoProvider(organization);
  return (
    <Panel
      title="Connect an identity provider"
      description="Members then sign in with their work account at your OpenID Connect provider (Okta, Microsoft Entra ID, Google Workspace, Keycloak…). Create an OpenID Connect web application there first: it gives you the client ID and secret, and once connected you give it the redirect URI shown here."
    >
      <form
        noValidate
        aria-label="Connect an identity provider"
        className="flex flex-col gap-4"
        onSubmit={form.handleSubmit((values) => register.mutate(values))}
      >
        <TextField
          label="Issuer URL"
          type="url"
          inputMode="url"
          autoComplete="off"
          placeholder="https://login.example.com"
          hint="Formgate reads the provider's settings from its /.well-known/openid-configuration."
          {...fieldOf(form, 'issuer')}
        />
        <TextField label="Client ID" autoComplete="off" {...fieldOf(form, 'clientId')} />
        <TextField label="Client secret" type="password" autoComplete="off" {...fieldOf(form, 'clientSecret')} />
        <TextField
          label="Email domain"
          autoComplete="off"
          placeholder="example.com"
          hint="People whose address is at this domain sign in through the provider. A DNS record will prove it is yours."
          {...fieldOf(form, 'domain')}
        />
        <SelectField label="New members join as" className="sm:max-w-xs" {...form.register('defaultRole')}>
          <option value="member">Member</option>
          <option value="admin">Admin</option>
        </SelectField>
        {register.error ? <Notice tone="error">{connectError(register.error)}</Notice> : null}
        <div>
          <SubmitButton pending={register.isPending} pendingLabel="Connecting…">
            Connect provider
          </SubmitButton>
        </div>
      </form>
    </Panel>
  );
}
