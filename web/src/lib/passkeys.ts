import { ApiError, isApiError } from './api.ts';

/** What a passkey is used for: adding one on the profile, or signing in with one. */
export type PasskeyCeremony = 'add' | 'sign-in';

const UNSUPPORTED = 'This browser cannot use passkeys. Try an up-to-date browser, or sign in with your password.';
const CANCELLED: Record<PasskeyCeremony, string> = {
  add: 'No passkey was added: the prompt was closed or timed out. Try again when you are ready.',
  'sign-in': 'The passkey sign-in was cancelled or timed out. Try again, or sign in with your password.',
};
const NOT_CHECKED: Record<PasskeyCeremony, string> = {
  add: 'Your passkey could not be checked, so it was not added. Try again.',
  'sign-in': 'Your passkey could not be checked. Try again, or sign in with your password.',
};
const WRONG_ADDRESS = 'Passkeys do not work at this address. Open Formgate at its usual address and try again.';

/**
 * The codes of better-auth's passkey client and server (and of `@simplewebauthn/browser`, which it passes on), as
 * sentences: the browser's prompt closed, cancelled or timed out (WebAuthn reports all three alike), a device that
 * already holds one of the account's passkeys, a passkey the server no longer knows, a check that failed.
 */
function sentenceFor(ceremony: PasskeyCeremony, code: string | undefined): string | undefined {
  switch (code) {
    case 'ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY':
    case 'ERROR_CEREMONY_ABORTED':
    case 'AUTH_CANCELLED':
      return CANCELLED[ceremony];
    case 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED':
      return 'This device already holds one of your passkeys: there is no need to add another here.';
    case 'PASSKEY_NOT_FOUND':
      return ceremony === 'sign-in'
        ? 'This passkey is not linked to a Formgate account any more. Sign in with your password; you can add a new passkey on your profile.'
        : undefined;
    case 'AUTHENTICATION_FAILED':
    case 'FAILED_TO_VERIFY_REGISTRATION':
    case 'CHALLENGE_NOT_FOUND':
      return NOT_CHECKED[ceremony];
    case 'ERROR_INVALID_DOMAIN':
    case 'ERROR_INVALID_RP_ID':
      return WRONG_ADDRESS;
    default:
      return undefined;
  }
}

/** Whether this browser has WebAuthn at all (every current one does; some embedded browsers do not). */
export const browserHasPasskeys = () => typeof globalThis.PublicKeyCredential === 'function';

/**
 * Runs a passkey call of better-auth's client (`run` unwraps its result): its data, or an `ApiError` whose message
 * says in plain words what went wrong and what to do (other errors pass unchanged, e.g. a rate limit's message).
 */
export async function passkeyCeremony<T>(ceremony: PasskeyCeremony, run: () => Promise<T>): Promise<T> {
  if (!browserHasPasskeys())
    throw new ApiError({
      status: 400,
      statusText: 'Bad Request',
      body: { code: 'PASSKEYS_UNSUPPORTED', message: UNSUPPORTED },
    });
  try {
    return await run();
  } catch (err) {
    const message = isApiError(err) ? sentenceFor(ceremony, err.code) : undefined;
    if (!isApiError(err) || message === undefined) throw err;
    throw new ApiError({ status: err.status, statusText: err.statusText, body: { code: err.code, message } });
  }
}
