import { promises as dns } from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import { createConsumers, type EventBus, type EventPublisher } from '@formgate/bus';
import { TOPIC_SPECS, Topics } from '@formgate/contracts';
import { type Clock, type Ids, loadPlans, type PlanCatalog, type StoreHealth } from '@formgate/kit';
import { accountRoutes } from './accounts.routes.ts';
import type { AccountsStore } from './accounts-store.ts';
import { type AdapterWrapper, guardAuthHandler } from './adapter-guard.ts';
import { type ApiKeyCacheOptions, createApiKeyCache } from './api-key-cache.ts';
import { reencryptTwoFactorSecrets } from './auth-secrets.ts';
import { createAuthenticator } from './authenticate.ts';
import { type StripeSettings, stripeBillingPlugins } from './billing/stripe-billing.ts';
import { type AuthSettings, authOptions, createAuth } from './create-auth.ts';
import { createMemberLimits, type MemberLimitAdapter } from './member-limits.ts';
import { createOrgEventOutbox } from './org-events/outbox.ts';
import type { OrgEventRecorder } from './org-events/recorder.ts';
import type { OutboxAdapter } from './org-events/schema.ts';
import { createOrganizationDirectory } from './organization-directory.ts';
import { createQuotaWarningHandler } from './quota-warnings.ts';
import { createSiteOrganization } from './site-org.ts';
import { createApiKeyVerifier, creatorOf } from './verify-api-key.ts';

export interface AccountsDeps
  extends Omit<
    AuthSettings,
    'database' | 'recordOrgEvent' | 'revokeApiKeys' | 'adapterGuard' | 'onVerifiedUser' | 'billingPlugins'
  > {
  store: AccountsStore;
  /** The log: organization and subscription events go out through it; with `subscribe`, quota warnings come in. */
  bus: EventPublisher | EventBus;
  clock: Clock;
  ids: Ids;
  /** `GET /api/v1/users/by-email/:email` lookups allowed per client IP per minute. */
  lookupsPerMinute: number;
  /** Deadline of every accounts database call (default 3 s). */
  authTimeoutMs?: number;
  /** The accounts database's health by a real round trip: a failed call answers 503 while it says down. */
  storeHealth?: StoreHealth;
  /** Verified API keys kept in memory (default: 30 s, 5 min stale while the database is down, 10,000 keys). */
  apiKeyCache?: ApiKeyCacheOptions;
  /**
   * Test seam, never set in production: wraps better-auth's adapter inside the deadline, so a test can make the
   * accounts database fail or hang (`createAdapterFaults`, `@formgate/accounts/testing`).
   */
  wrapAdapter?: AdapterWrapper;
  /** Stripe keys: without them billing is off and every organization is on the default plan. */
  stripe?: StripeSettings;
  /** The plans (`loadPlans(PLANS_FILE)`); default: the built-in plans. */
  plans?: PlanCatalog;
  /**
   * DNS servers for the TXT lookups of single sign-on's domain verification (`DNS_SERVERS`); empty or absent: the
   * system's. `start()` sets them for the process's `dns.promises` resolver, which better-auth's SSO plugin uses.
   */
  dnsServers?: string[];
}

const DEFAULT_KEY_CACHE: ApiKeyCacheOptions = { ttlMs: 30_000, maxStaleMs: 300_000, size: 10_000 };

/** Deletes an organization's API keys: all of them, or those one member created. */
function keyRevoker(adapter: () => OutboxAdapter | undefined, record: OrgEventRecorder): AuthSettings['revokeApiKeys'] {
  return async (orgId, createdBy) => {
    const db = adapter();
    if (!db) return;
    const keys = await db.findMany<{ id: string; name?: string | null; metadata?: unknown }>({
      model: 'apikey',
      where: [{ field: 'referenceId', value: orgId }],
    });
    const doomed = keys.filter((k) => createdBy === undefined || creatorOf(k.metadata) === createdBy);
    if (doomed.length === 0) return;
    await db.deleteMany({ model: 'apikey', where: [{ field: 'id', operator: 'in', value: doomed.map((k) => k.id) }] });
    // Revoked with their member (removed, or no longer allowed keys): by nobody in particular. An organization's
    // deletion purges its log anyway.
    if (createdBy !== undefined)
      for (const k of doomed) await record('api-key.revoked', { orgId, actor: null, keyId: k.id, name: k.name ?? '' });
  };
}

/**
 * Accounts for one gateway: better-auth on its database, the authenticator that turns a request into a caller,
 * the routes the gateway answers itself (session, user lookup, API keys) and the relay of organization events to
 * the log. Building it has no side effects; `start()` migrates the database (the store's `prepare`) and starts the
 * relay.
 */
export function createAccounts(deps: AccountsDeps) {
  const outbox = createOrgEventOutbox({ clock: deps.clock, ids: deps.ids, logger: deps.logger });
  const database = deps.store.database;
  const keyCache = createApiKeyCache(deps.apiKeyCache ?? DEFAULT_KEY_CACHE, () => deps.clock.now().getTime());
  let adapter: OutboxAdapter | undefined;
  const site = createSiteOrganization({
    adapter: () => {
      if (!adapter) throw new Error('site organization used before accounts.start()');
      return adapter;
    },
    record: outbox.record,
    clock: deps.clock,
  });
  const plans = deps.plans ?? loadPlans(undefined);
  const requireAdapter = () => {
    if (!adapter) throw new Error('accounts used before accounts.start()');
    return adapter;
  };
  const settings: AuthSettings = {
    ...deps,
    billingPlugins: deps.stripe
      ? stripeBillingPlugins({
          stripe: deps.stripe,
          plans,
          publicUrl: deps.publicUrl,
          logger: deps.logger,
          record: outbox.recordSubscription,
          adapter: requireAdapter,
        })
      : undefined,
    memberLimits: createMemberLimits({
      plans,
      billingEnabled: deps.stripe !== undefined,
      adapter: () => requireAdapter() as unknown as MemberLimitAdapter,
      now: () => deps.clock.now(),
    }),
    database,
    adapterGuard: {
      timeoutMs: deps.authTimeoutMs ?? 3_000,
      onWrite: keyCache.observeWrite,
      wrap: deps.wrapAdapter,
      ...(deps.storeHealth ? { storeHealthy: deps.storeHealth.healthy } : {}),
    },
    recordOrgEvent: outbox.record,
    revokeApiKeys: keyRevoker(() => adapter, outbox.record),
    onVerifiedUser: async (user) => {
      if (await site.claimFirstOwner({ id: user.id, email: user.email }))
        deps.logger.info({ userId: user.id }, 'first verified user is the owner of the site organization');
    },
  };
  const auth = createAuth(settings);
  const quotaWarnings =
    'subscribe' in deps.bus
      ? createConsumers(deps.bus, TOPIC_SPECS, [
          {
            group: 'accounts.quota-warnings',
            topic: Topics.billingQuota,
            handler: createQuotaWarningHandler({
              adapter: () => adapter as OutboxAdapter,
              mailer: deps.mailer,
              clock: deps.clock,
              logger: deps.logger,
              publicUrl: deps.publicUrl,
            }),
          },
        ])
      : undefined;
  const verifyKey = createApiKeyVerifier({
    adapter: async () => (await auth.$context).adapter,
    cache: keyCache,
    clock: deps.clock,
    logger: deps.logger,
  });
  return {
    auth,
    /** better-auth's endpoints for `/api/auth/*`, answering 503 when the database does not. */
    authHandler: guardAuthHandler(auth.handler),
    authenticate: createAuthenticator(auth, verifyKey),
    routes: accountRoutes(auth, { lookupsPerMinute: deps.lookupsPerMinute, record: outbox.record }),
    /** The instance's own organization (the public site's forms), ADR 23. */
    site,
    /** Organizations by id or slug, for the operator API (`/api/ops/orgs`). */
    organizations: createOrganizationDirectory(requireAdapter),
    /** Whether organizations can buy plans here (Stripe keys set): `/api/auth/subscription/*` exists. */
    billingEnabled: deps.stripe !== undefined,
    async start() {
      if (deps.dnsServers?.length) {
        // `setServers` installs a new default resolver on `node:dns`'s CommonJS exports; the plugin imports
        // `node:dns/promises` as an ES module, whose bindings follow only once synced.
        dns.setServers(deps.dnsServers);
        syncBuiltinESMExports();
      }
      await deps.store.prepare(authOptions(settings));
      const context = await auth.$context;
      adapter = context.adapter as unknown as OutboxAdapter;
      if (deps.previousSecret) {
        const reencrypted = await reencryptTwoFactorSecrets(context.adapter, context.secretConfig, deps.logger);
        if (reencrypted > 0)
          deps.logger.info({ reencrypted }, 'two-factor secrets encrypted again with the current AUTH_SECRET');
      }
      outbox.start(adapter, deps.bus);
      await quotaWarnings?.start();
      if (!deps.stripe)
        deps.logger.info(
          { defaultPlan: plans.defaultPlan },
          `billing is off (no STRIPE_SECRET_KEY): every organization is on the default plan "${plans.defaultPlan}"`,
        );
      else deps.logger.info({ apiUrl: deps.stripe.apiUrl ?? 'https://api.stripe.com' }, 'billing through Stripe');
    },
    async stop() {
      await quotaWarnings?.stop();
      await outbox.stop();
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
