import { createConsumers, type EventBus } from '@formgate/bus';
import { type BillingUsageDto, billingPeriodOf, TOPIC_SPECS, Topics } from '@formgate/contracts';
import {
  AppError,
  type Clock,
  createServiceApp,
  errorHandler,
  type IdentityVerifier,
  identityOf,
  type Logger,
  requireIdentity,
  type Service,
} from '@formgate/kit';
import { createEmailUsageHandler } from './handlers/delivery.handler.ts';
import { createOrgPurgeHandler } from './handlers/org-purge.handler.ts';
import { createUsageHandler, type PlanLimits } from './handlers/submission-received.handler.ts';
import type { UsageStore } from './store/usage-store.ts';

export interface BillingServiceDeps {
  /** The submissions meter. */
  store: UsageStore;
  /** The notification emails meter (`createSqliteUsageStore(db, { meter: 'emails' })`). */
  emails: UsageStore;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  identity: IdentityVerifier;
  plans: PlanLimits;
}

/** Billing: the usage meter and the quota view other services read from `billing.quota`. */
export function createBillingService(deps: BillingServiceDeps): Service {
  const app = createServiceApp();
  app.get('/api/v1/billing/usage', requireIdentity(deps.identity), async (req, res) => {
    const { orgId } = identityOf(req);
    const period = billingPeriodOf(deps.clock.now());
    const used = await deps.store.getUsage({ orgId }, period);
    const emailsUsed = await deps.emails.getUsage({ orgId }, period);
    // Interim until plans land (issue 13): the configured limits, nothing held or deferred yet.
    const usage: BillingUsageDto = {
      period,
      plan: { id: 'configured', name: 'Configured limits' },
      subscription: null,
      submissions: { used, max: deps.plans.submissionsPerMonth(orgId), held: 0 },
      emails: { used: emailsUsed, max: deps.plans.emailsPerMonth(orgId), deferred: 0 },
    };
    res.json(usage);
  });
  // Emails sent this period: metered from notifications' delivery events.
  app.get('/api/v1/billing/email-quota', requireIdentity(deps.identity), async (req, res) => {
    const { orgId } = identityOf(req);
    const used = await deps.emails.getUsage({ orgId }, billingPeriodOf(deps.clock.now()));
    res.json({ used, max: deps.plans.emailsPerMonth(orgId) });
  });
  app.use((_req, _res, next) => next(new AppError('NOT_FOUND')));
  app.use(errorHandler(deps.logger));

  const consumers = createConsumers(deps.bus, TOPIC_SPECS, [
    { group: 'billing.usage', topic: Topics.ingestSubmission, handler: createUsageHandler(deps), maxBatchSize: 1_000 },
    { group: 'billing.org-purge', topic: Topics.orgsOrganization, handler: createOrgPurgeHandler(deps) },
    {
      group: 'billing.emails',
      topic: Topics.notificationsDelivery,
      handler: createEmailUsageHandler(deps),
      maxBatchSize: 1_000,
    },
  ]);
  return { name: 'billing', app, start: consumers.start, stop: consumers.stop };
}
