import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

/** The person the test IdP signs in; `emailVerified` defaults to true. */
export interface IdpUser {
  sub: string;
  email: string;
  name: string;
  emailVerified?: boolean;
}

export interface TestIdp {
  /** e.g. http://127.0.0.1:41234 — also the issuer */
  issuer: string;
  origin: string;
  /** Registers (or replaces) the one confidential client: client_secret_basic (also accept client_secret_post), authorization_code, PKCE allowed but not required, response_type code, scopes openid email profile. */
  setClient(client: { clientId: string; clientSecret: string; redirectUris: string[] }): void;
  /** The user the next interactions sign in automatically (no login form): login and consent are finished by the harness. */
  signInAs(user: IdpUser): void;
  /** How many authorizations completed (for assertions). */
  readonly completedLogins: number;
  stop(): Promise<void>;
}

// oidc-provider 9 ships no type declarations: the few parts of its API the harness uses.
type Payload = Record<string, unknown> & { uid?: string; userCode?: string; grantId?: string };
interface Grant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
}
interface InteractionDetails {
  prompt: {
    name: string;
    details: {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
  };
  params: Record<string, unknown> & { client_id: string };
  session?: { accountId: string };
  grantId?: string;
}
interface Provider {
  callback(): (req: IncomingMessage, res: ServerResponse) => unknown;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
  Grant: { new (init: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}
type ProviderClass = new (issuer: string, configuration: Record<string, unknown>) => Provider;

let providerClass: Promise<ProviderClass> | undefined;

/** Loads oidc-provider once, dropping its import-time "unsupported runtime" warning (it asks for Node 22). */
function loadProvider() {
  providerClass ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (!String(args[0]).includes('Unsupported runtime')) warn(...args);
    };
    try {
      // @ts-expect-error oidc-provider 9 ships no type declarations; see `Provider` above.
      const module: { Provider: ProviderClass } = await import('oidc-provider');
      return module.Provider;
    } finally {
      console.warn = warn;
    }
  })();
  return providerClass;
}

/** Token models that are revoked together with their grant. */
const grantable = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
]);

type Store = Map<string, { payload: Payload; expiresAt: number }>;

/** oidc-provider's storage interface over a plain map (its built-in memory adapter warns on every start). */
class MemoryAdapter {
  constructor(
    private readonly model: string,
    private readonly store: Store,
  ) {}

  private key(id: string) {
    return `${this.model}:${id}`;
  }

  private live(key: string) {
    const entry = this.store.get(key);
    if (entry && entry.expiresAt <= Date.now()) this.store.delete(key);
    return entry && entry.expiresAt > Date.now() ? entry.payload : undefined;
  }

  private findWhere(match: (payload: Payload) => boolean) {
    for (const [key, { payload }] of this.store) {
      if (key.startsWith(`${this.model}:`) && match(payload)) return this.live(key);
    }
    return undefined;
  }

  async upsert(id: string, payload: Payload, expiresIn?: number) {
    const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY;
    this.store.set(this.key(id), { payload, expiresAt });
  }

  async find(id: string) {
    return this.live(this.key(id));
  }

  async findByUid(uid: string) {
    return this.findWhere((payload) => payload.uid === uid);
  }

  async findByUserCode(userCode: string) {
    return this.findWhere((payload) => payload.userCode === userCode);
  }

  async consume(id: string) {
    const payload = this.live(this.key(id));
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string) {
    this.store.delete(this.key(id));
  }

  async revokeByGrantId(grantId: string) {
    for (const [key, { payload }] of this.store) {
      if (grantable.has(key.slice(0, key.indexOf(':'))) && payload.grantId === grantId) this.store.delete(key);
    }
  }
}

const text = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(body);
};

/**
 * A real OpenID Connect provider (`oidc-provider`, OpenID certified) on 127.0.0.1 for single sign-on tests.
 * There is no login form: `/interaction/:uid` signs in the `signInAs` user and grants the requested scopes at once.
 * `setClient` rebuilds the provider, which starts with empty storage (no sessions, grants or tokens).
 */
export async function startTestIdp(): Promise<TestIdp> {
  const Provider = await loadProvider();
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey: JWK = {
    ...(await exportJWK(privateKey)),
    alg: 'RS256',
    use: 'sig',
    kid: randomBytes(8).toString('hex'),
  };
  const cookieKeys = [randomBytes(32).toString('hex')];
  const users = new Map<string, IdpUser>();
  let currentUser: IdpUser | undefined;
  let completedLogins = 0;
  let store: Store = new Map();
  let provider: Provider;
  let handle: (req: IncomingMessage, res: ServerResponse) => unknown;

  /** Login: the current user. Consent: a grant of everything the client asked for. */
  async function interact(req: IncomingMessage, res: ServerResponse) {
    const user = currentUser;
    if (!user) return text(res, 500, 'test IdP: no user to sign in, call signInAs() first');
    const details = await provider.interactionDetails(req, res);
    const { name, details: missing } = details.prompt;
    if (name === 'login') {
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: user.sub } },
        { mergeWithLastSubmission: false },
      );
    }
    if (name !== 'consent') return text(res, 500, `test IdP: unexpected prompt ${name}`);
    const accountId = details.session?.accountId ?? user.sub;
    const grant =
      (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
      new provider.Grant({ accountId, clientId: details.params.client_id });
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const grantId = await grant.save();
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  const server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://idp').pathname.startsWith('/interaction/')) {
      interact(req, res).catch((error: unknown) => {
        if (!res.headersSent) text(res, 500, `test IdP: ${error instanceof Error ? error.message : String(error)}`);
      });
      return;
    }
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function build(client?: { clientId: string; clientSecret: string; redirectUris: string[] }) {
    const storage: Store = new Map();
    provider = new Provider(origin, {
      adapter: (model: string) => new MemoryAdapter(model, storage),
      clients: client
        ? [
            {
              client_id: client.clientId,
              client_secret: client.clientSecret,
              redirect_uris: client.redirectUris,
              grant_types: ['authorization_code'],
              response_types: ['code'],
              // oidc-provider accepts client_secret_post as well for a client_secret_basic client.
              token_endpoint_auth_method: 'client_secret_basic',
              scope: 'openid email profile',
            },
          ]
        : [],
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      // Scope-requested claims go into the ID token too, not only to userinfo.
      conformIdTokenClaims: false,
      cookies: { keys: cookieKeys },
      features: { devInteractions: { enabled: false }, userinfo: { enabled: true } },
      jwks: { keys: [signingKey] },
      pkce: { required: () => false },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      async findAccount(_ctx: unknown, sub: string) {
        const user = users.get(sub);
        if (!user) return undefined;
        const claims = { sub, email: user.email, email_verified: user.emailVerified ?? true, name: user.name };
        return { accountId: sub, claims: async () => claims };
      },
      // The defaults below are replaced only because they print a notice on first use.
      clientBasedCORS: (_ctx: unknown, requestOrigin: string, c: { redirectUris: string[] }) =>
        c.redirectUris.some((uri) => URL.parse(uri)?.origin === requestOrigin),
      async renderError(ctx: { type: string; body: string }, out: Record<string, string>) {
        ctx.type = 'text';
        ctx.body = Object.entries(out)
          .map(([key, value]) => `${key}: ${value}`)
          .join('\n');
      },
      ttl: {
        AccessToken: 3600,
        AuthorizationCode: 60,
        ClientCredentials: 600,
        DeviceCode: 600,
        BackchannelAuthenticationRequest: 600,
        PreAuthorizedCode: 600,
        Grant: 3600,
        IdToken: 3600,
        Interaction: 600,
        RefreshToken: 86400,
        Session: 3600,
      },
    });
    provider.on('authorization.success', () => {
      completedLogins += 1;
    });
    provider.on('server_error', (_ctx, error) => console.error('test IdP server_error', error));
    store = storage;
    handle = provider.callback();
  }
  build();

  return {
    issuer: origin,
    origin,
    setClient: build,
    signInAs(user) {
      users.set(user.sub, user);
      currentUser = user;
      // End existing IdP sessions so the next authorization signs in this user rather than a remembered one.
      for (const key of store.keys()) if (key.startsWith('Session:')) store.delete(key);
    },
    get completedLogins() {
      return completedLogins;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
