import { vi } from 'vitest';
import type { ApiHandler, RecordedRequest } from './api-server.ts';
import { aWorld, sessionOf, type TwoFactorWorld, twoFactorApi } from './two-factor-api.ts';

/** A passkey as better-auth's `list-user-passkeys` answers it. */
export interface StoredPasskey {
  id: string;
  name?: string;
  credentialID: string;
  createdAt: string;
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
}

/** What the stand-in knows: the account (session, organization: the two-factor stand-in's) and its passkeys. */
export interface PasskeyWorld {
  account: TwoFactorWorld;
  passkeys: StoredPasskey[];
}

export const aPasskeyWorld = (over: { signedIn?: boolean; passkeys?: StoredPasskey[] } = {}): PasskeyWorld => ({
  account: aWorld({ signedIn: over.signedIn ?? true }),
  passkeys: over.passkeys ?? [],
});

export const aPasskey = (id: string, name: string, over: Partial<StoredPasskey> = {}): StoredPasskey => ({
  id,
  name,
  credentialID: `cred-${id}`,
  createdAt: '2026-11-02T09:30:00.000Z',
  deviceType: 'singleDevice',
  backedUp: false,
  ...over,
});

const refused = (status: number, code: string, message: string) => ({ status, body: { code, message } });
const bodyOf = (req: RecordedRequest) => (req.body ?? {}) as { id?: string; name?: string; response?: { id?: string } };

/** The options better-auth's passkey endpoints hand the browser (base64url challenge and user id). */
const registerOptions = (world: PasskeyWorld) => ({
  challenge: 'Y2hhbGxlbmdlLXJlZ2lzdGVy',
  rp: { name: 'Formgate', id: 'localhost' },
  user: { id: 'dTE', name: 'ada@example.com', displayName: 'ada@example.com' },
  pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
  excludeCredentials: world.passkeys.map((p) => ({ id: p.credentialID, type: 'public-key' })),
  authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
});
const authenticateOptions = { challenge: 'Y2hhbGxlbmdlLXNpZ24taW4', rpId: 'localhost', userVerification: 'preferred' };

function passkeyEndpoints(world: PasskeyWorld, req: RecordedRequest) {
  const signedIn = world.account.signedIn;
  const unauthorized = refused(401, 'UNAUTHORIZED', 'Unauthorized');
  const { id, name, response } = bodyOf(req);
  switch (req.path) {
    case '/api/auth/passkey/list-user-passkeys':
      return signedIn ? { body: world.passkeys } : unauthorized;
    case '/api/auth/passkey/generate-register-options':
      return signedIn ? { body: registerOptions(world) } : unauthorized;
    case '/api/auth/passkey/verify-registration': {
      if (!signedIn) return unauthorized;
      const added = aPasskey(`pk${world.passkeys.length + 1}`, name ?? '', {
        credentialID: response?.id ?? '',
        createdAt: '2026-11-20T08:00:00.000Z',
        deviceType: 'multiDevice',
        backedUp: true,
      });
      world.passkeys.push(added);
      return { body: added };
    }
    case '/api/auth/passkey/update-passkey': {
      const passkey = world.passkeys.find((p) => p.id === id);
      if (!signedIn || !passkey) return refused(404, 'PASSKEY_NOT_FOUND', 'Passkey not found');
      passkey.name = name ?? '';
      return { body: { passkey } };
    }
    case '/api/auth/passkey/delete-passkey':
      world.passkeys = world.passkeys.filter((p) => p.id !== id);
      return { body: { status: true } };
    case '/api/auth/passkey/generate-authenticate-options':
      return { body: authenticateOptions };
    case '/api/auth/passkey/verify-authentication': {
      if (!world.passkeys.some((p) => p.credentialID === response?.id))
        return refused(401, 'PASSKEY_NOT_FOUND', 'Passkey not found');
      world.account.signedIn = true;
      return { body: { session: { id: 's-new', token: 'tok-new' }, user: sessionOf(world.account).user } };
    }
    default:
      return undefined;
  }
}

/**
 * A stand-in for the gateway's passkey endpoints (better-auth's plugin) over `world`, changed as the calls succeed,
 * with the rest of the dashboard's answers (session, sign-in, organization) from the two-factor stand-in.
 */
export function passkeysApi(world: PasskeyWorld): ApiHandler {
  const rest = twoFactorApi(world.account);
  return (req) => (req.path.startsWith('/api/auth/passkey/') ? passkeyEndpoints(world, req) : rest(req));
}

const bytes = (text: string) => new TextEncoder().encode(text).buffer;

/**
 * The browser's WebAuthn, which jsdom lacks: `PublicKeyCredential` exists and `navigator.credentials` answers with the
 * credential `credentialId` (creating or using it), or rejects with a `DOMException` named `refuse` (`NotAllowedError`:
 * the person closed the prompt; `InvalidStateError`: the device already holds one of the account's passkeys).
 */
export function stubWebAuthn(device: { credentialId: string; refuse?: string }) {
  const credential = (response: Record<string, unknown>) => ({
    id: device.credentialId,
    rawId: bytes(device.credentialId),
    type: 'public-key',
    response,
    authenticatorAttachment: 'platform',
    getClientExtensionResults: () => ({}),
  });
  const answer = async (response: Record<string, unknown>) => {
    if (device.refuse) throw new DOMException('The operation either timed out or was not allowed.', device.refuse);
    return credential(response);
  };
  const credentials = {
    create: vi.fn(() =>
      answer({
        attestationObject: bytes('attestation'),
        clientDataJSON: bytes('{"type":"webauthn.create"}'),
        getTransports: () => ['internal'],
      }),
    ),
    get: vi.fn(() =>
      answer({
        authenticatorData: bytes('authenticator-data'),
        clientDataJSON: bytes('{"type":"webauthn.get"}'),
        signature: bytes('signature'),
        userHandle: bytes('u1'),
      }),
    ),
  };
  vi.stubGlobal('PublicKeyCredential', class PublicKeyCredential {});
  Object.defineProperty(navigator, 'credentials', { value: credentials, configurable: true });
  return {
    credentials,
    close: async () => {
      Reflect.deleteProperty(navigator, 'credentials');
    },
  };
}
