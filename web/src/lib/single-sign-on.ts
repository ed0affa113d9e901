import { describeError, isApiError } from './api.ts';

/**
 * Single sign-on's failures as sentences. better-auth's SSO plugin words its refusals for developers ("No provider
 * found for the issuer"), and a failed return from the identity provider comes back as an address: the sign-in
 * screen and the organization's gate say what happened in the same words.
 */

/** The search parameter of an address the identity provider sent the browser back to after a failure. */
export const SSO_ERROR_PARAM = 'sso_error';

/** `path` (a local path, with its query) without the marks of a failed return from the identity provider. */
export function withoutSsoError(path: string): string {
  const url = new URL(path, 'http://x.invalid');
  for (const name of [SSO_ERROR_PARAM, 'error', 'error_description']) url.searchParams.delete(name);
  return url.pathname + url.search;
}

/**
 * `path` (a local path, with its query) marked as where single sign-on failed: better-auth sends the browser back
 * there (`errorCallbackURL`), adding `error` (and `error_description`) to the query.
 */
export function ssoErrorPath(path: string): string {
  const url = new URL(withoutSsoError(path), 'http://x.invalid');
  url.searchParams.set(SSO_ERROR_PARAM, '1');
  return url.pathname + url.search;
}

/**
 * A refused start of single sign-on (`/sign-in/sso`): 404 when no identity provider is set up for the address's
 * domain (or the organization), 401 while its domain is not verified.
 */
export function ssoStartError(err: unknown, by: 'domain' | 'organization'): string {
  if (isApiError(err) && err.status === 404)
    return by === 'domain'
      ? 'No identity provider is set up for this domain. Sign in with your password instead.'
      : 'No identity provider is set up for this organization any more. Ask one of its owners.';
  if (isApiError(err) && err.status === 401)
    return by === 'domain'
      ? 'This domain has not been verified yet. Ask your administrator, or sign in with your password.'
      : "The organization's domain has not been verified yet. Ask one of its owners.";
  return describeError(err);
}

/** better-auth's `error` values after a failed return from the identity provider, as what went wrong. */
const RETURN_ERRORS = new Map([
  ['access_denied', 'Your identity provider did not let you in.'],
  ['invalid_state', 'The sign-in took too long, or began in another browser.'],
  ['account not linked', 'An account with your address exists, and it could not be linked to your identity provider.'],
  [
    'unable to link account',
    'An account with your address exists, and it could not be linked to your identity provider.',
  ],
]);

/**
 * What a failed return from the identity provider (`?sso_error`) says, by its `error`. Its `error_description` is
 * never shown: anyone can write an address, and the page would then say what they wrote.
 */
export function ssoReturnError(error: string | null): string {
  const why = RETURN_ERRORS.get(error ?? '');
  return `Single sign-on did not work.${why ? ` ${why}` : ''} Try again, or ask your administrator.`;
}
