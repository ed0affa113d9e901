import { createConsumers, type EventBus, PROJECTION_GATHER_MS } from '@formgate/bus';
import {
  type BillingUsageDto,
  billingPeriodOf,
  type EmailQuotaDto,
  type PlansResponseDto,
  type SubscriptionDto,
  TOPIC_SPECS,
  Topics,
} from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import {
  AppError,
  type Clock,
  createServiceApp,
  errorHandler,
  type IdentityVerifier,
  identityOf,
  type Logger,
  type Metrics,
  mountRoute,
  type PlanCatalog,
  requireIdentity,
  type Service,
  type StoreHealth,
  type Tracing,
} from '@formgate/kit';
import { createEmailUsageHandler } from './handlers/delivery.handler.ts';
import { createOrgPurgeHandler } from './handlers/org-purge.handler.ts';
import { createStorageHandlers } from './handlers/storage.handler.ts';
import { createSubmissionChangedHandler } from './handlers/submission-changed.handler.ts';
import { createUsageHandler } from './handlers/submission-received.handler.ts';
import { createSubscriptionChangedHandler } from './handlers/subscription-changed.handler.ts';
import { startPeriodWatch } from './period-watch.ts';
import { createQuota, toMb } from './quota.ts';
import type { BillingStores } from './store/billing-stores.ts';
import type { SubscriptionState } from './store/records.ts';

/** The stores (`BillingStores`, each its own port) and the rest of what the service needs. */
export interface BillingServiceDeps extends BillingStores {
  /** The plans in force (`loadPlans(config.PLANS_FILE)`). */
  catalog: PlanCatalog;
  /** The instance takes payments (it has Stripe keys); without, every organization is on the default plan. */
  billingEnabled: boolean;
  bus: EventBus;
  clock: Clock;
  /** The process's tracing (`startTracing`); absent: off. */
  tracing?: Tracing | undefined;
  logger: Logger;
  /** The process's stores, probed by a real round trip: an unknown error while one is down answers 503, not 500. */
  storeHealth?: StoreHealth;
  /** The process's metrics (`formgate_http_*` of this service's routes); none recorded without. */
  metrics?: Metrics;
  identity: IdentityVerifier;
  /** How often the turn of a period is looked for (default a minute). */
  periodCheckMs?: number;
}

const subscriptionDto = (s: SubscriptionState | null): SubscriptionDto | null =>
  s?.status
    ? {
        status: s.status,
        interval: s.interval,
        periodStart: s.periodStart,
        periodEnd: s.periodEnd,
        cancelAtPeriodEnd: s.cancelAtPeriodEnd,
        trialEnd: s.trialEnd,
      }
    : null;

/** Billing: plans in force, subscriptions, the usage and held ledgers, and the quota view on `billing.quota`. */
export function createBillingService(deps: BillingServiceDeps): Service {
  const quota = createQuota(deps);
  const app = createServiceApp({
    observe: deps.metrics && { service: 'billing', metrics: deps.metrics },
    tracing: deps.tracing,
  });
  mountRoute(app, API_ROUTES.listPlans, (_req, res) => {
    const plans: PlansResponseDto = {
      data: deps.catalog.plans,
      defaultPlan: deps.catalog.defaultPlan,
      billingEnabled: deps.billingEnabled,
    };
    res.json(plans);
  });
  mountRoute(app, API_ROUTES.getBillingUsage, requireIdentity(deps.identity), async (req, res) => {
    const { orgId } = identityOf(req);
    const [{ view, plan, subscription }, deferred] = await Promise.all([
      quota.quotaOf(orgId, billingPeriodOf(deps.clock.now())),
      deps.deferredEmails.countHeld({ orgId }),
    ]);
    const usage: BillingUsageDto = {
      period: view.period,
      plan: { id: plan.id, name: plan.name },
      subscription: subscriptionDto(subscription),
      submissions: { used: view.submissionsUsed, max: view.submissionsMax, held: view.submissionsHeld },
      // Deferred: from notifications' `delivery.deferred`, until the delivery's outcome.
      emails: { used: view.emailsUsed, max: view.emailsMax ?? plan.limits.emailsPerMonth, deferred },
      storage: { usedMb: toMb(await deps.storage.usedBytes({ orgId })), maxMb: plan.limits.fileStorageMb },
    };
    res.json(usage);
  });
  // Emails sent this period: metered from notifications' delivery events.
  mountRoute(app, API_ROUTES.getEmailQuota, requireIdentity(deps.identity), async (req, res) => {
    const { orgId } = identityOf(req);
    const { view, plan } = await quota.quotaOf(orgId, billingPeriodOf(deps.clock.now()));
    const body: EmailQuotaDto = { used: view.emailsUsed, max: plan.limits.emailsPerMonth };
    res.json(body);
  });
  app.use((_req, _res, next) => next(new AppError('NOT_FOUND')));
  app.use(errorHandler(deps.logger, deps.storeHealth));

  const handlerDeps = { ...deps, quota };
  const storage = createStorageHandlers(handlerDeps);
  const consumers = createConsumers(deps.bus, TOPIC_SPECS, [
    {
      group: 'billing.usage',
      topic: Topics.ingestSubmission,
      handler: createUsageHandler(handlerDeps),
      maxBatchSize: 1_000,
      gatherMs: PROJECTION_GATHER_MS,
    },
    {
      group: 'billing.releases',
      topic: Topics.formsSubmission,
      handler: createSubmissionChangedHandler(handlerDeps),
      maxBatchSize: 1_000,
      gatherMs: PROJECTION_GATHER_MS,
    },
    {
      group: 'billing.subscriptions',
      topic: Topics.billingSubscription,
      handler: createSubscriptionChangedHandler(handlerDeps),
    },
    { group: 'billing.org-purge', topic: Topics.orgsOrganization, handler: createOrgPurgeHandler(handlerDeps) },
    {
      group: 'billing.storage',
      topic: Topics.ingestSubmission,
      handler: storage.received,
      maxBatchSize: 1_000,
      gatherMs: PROJECTION_GATHER_MS,
    },
    {
      group: 'billing.storage-deletions',
      topic: Topics.formsSubmission,
      handler: storage.deleted,
      maxBatchSize: 1_000,
      gatherMs: PROJECTION_GATHER_MS,
    },
    { group: 'billing.storage-forms', topic: Topics.formsForm, handler: storage.formDeleted, maxBatchSize: 500 },
    {
      group: 'billing.emails',
      topic: Topics.notificationsDelivery,
      handler: createEmailUsageHandler(handlerDeps),
      maxBatchSize: 1_000,
      gatherMs: PROJECTION_GATHER_MS,
    },
  ]);
  let watch: ReturnType<typeof startPeriodWatch> | undefined;
  return {
    name: 'billing',
    app,
    async start() {
      if (!deps.billingEnabled)
        deps.logger.info('billing off (no Stripe keys): every organization is on the default plan');
      await consumers.start();
      watch = startPeriodWatch({ ...handlerDeps, intervalMs: deps.periodCheckMs ?? 60_000 });
    },
    async stop() {
      await watch?.stop();
      await consumers.stop();
    },
  };
}
