import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { isApiError } from '../../lib/api.ts';
import { unwrap, useServices } from '../../lib/app-context.tsx';
import { newProviderId, type SsoProviderForm, ssoKeys } from './sso.queries.ts';

/*
 * The identity provider's changes. Each panel shows its own refusal in words of its own (the domain's record not
 * found yet, the requirement still on): none of them toasts an error.
 */

/**
 * Connects the organization's identity provider, under an id made from its slug. The answer's verification token
 * is kept for the DNS record the screen shows next.
 */
export function useRegisterSsoProvider(org: { id: string; slug: string }) {
  const { auth } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ clientId, clientSecret, ...values }: SsoProviderForm) =>
      unwrap(
        await auth.sso.register({
          ...values,
          providerId: newProviderId(org.slug),
          organizationId: org.id,
          oidcConfig: { clientId, clientSecret, pkce: true },
        }),
      ),
    meta: { toast: false },
    onSuccess: async (created) => {
      queryClient.setQueryData(ssoKeys.verificationToken(created.providerId), created.domainVerificationToken);
      toast.success('Identity provider connected');
      await queryClient.invalidateQueries({ queryKey: ssoKeys.providers });
    },
    // Another admin connected one meanwhile: the screen then shows theirs.
    onError: async (err) => {
      if (isApiError(err) && err.code === 'SSO_PROVIDER_EXISTS')
        await queryClient.invalidateQueries({ queryKey: ssoKeys.providers });
    },
  });
}

/**
 * Asks the server to look the domain's TXT record up. It answers 502 while the record is not found, 409 when the
 * domain was verified meanwhile (the provider is asked again), 404 when the token expired (a new one is asked for).
 */
export function useVerifySsoDomain(providerId: string) {
  const { auth } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      unwrap(await auth.sso.verifyDomain({ providerId }));
    },
    meta: { toast: false },
    onSuccess: async () => {
      toast.success('Domain verified');
      await queryClient.invalidateQueries({ queryKey: ssoKeys.providers });
    },
    onError: async (err) => {
      if (isApiError(err) && err.code === 'DOMAIN_VERIFIED')
        await queryClient.invalidateQueries({ queryKey: ssoKeys.providers });
      if (isApiError(err) && err.code === 'NO_PENDING_VERIFICATION')
        await queryClient.invalidateQueries({ queryKey: ssoKeys.verificationToken(providerId) });
    },
  });
}

/**
 * The setting "members must sign in with single sign-on". The server refuses it until the provider's domain is
 * verified (`SSO_NOT_SET_UP`): the panel shows that refusal itself.
 */
export function useRequireSso(organizationId: string) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (requireSso: boolean) =>
      unwrap(await auth.organization.update({ organizationId, data: { requireSso } })),
    meta: { toast: false },
    onSuccess: (_data, required) =>
      toast.success(required ? 'Members must now sign in with single sign-on' : 'Single sign-on is no longer required'),
  });
}

/** Removes the identity provider; refused while members must sign in through it (`SSO_REQUIRED_BY_ORGANIZATION`). */
export function useRemoveSsoProvider(providerId: string) {
  const { auth } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => unwrap(await auth.sso.deleteProvider({ providerId })),
    meta: { toast: false },
    onSuccess: async () => {
      toast.success('Identity provider removed');
      queryClient.removeQueries({ queryKey: ssoKeys.verificationToken(providerId) });
      await queryClient.invalidateQueries({ queryKey: ssoKeys.providers });
    },
  });
}
