import { generate } from 'otplib';

/** The base32 secret of an `otpauth://totp/…?secret=…` URI (what an authenticator app scans). */
export function totpSecretOf(uri: string): string {
  const secret = new URL(uri).searchParams.get('secret');
  if (!secret) throw new Error(`no secret in ${uri}`);
  return secret;
}

/**
 * The code an authenticator app shows for `uri` (RFC 6238: SHA-1, 6 digits, 30 s), now or `offsetSteps` periods
 * away. Computed by otplib, independently of the server's better-auth.
 */
export function totpCode(uri: string, offsetSteps = 0): Promise<string> {
  return totpCodeFromSecret(totpSecretOf(uri), offsetSteps);
}

/**
 * The same for a base32 key typed into the app by hand (the key a setup screen shows beside its QR code); spaces a
 * screen groups the key with are left out.
 */
export function totpCodeFromSecret(secret: string, offsetSteps = 0): Promise<string> {
  return generate({ secret: secret.replace(/\s+/g, ''), epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });
}
