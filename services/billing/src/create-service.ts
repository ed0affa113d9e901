import type { EventBus, Subscription } from '@formgate/bus';
import { TOPIC_SPECS, Topics } from '@formgate/contracts';
import {
  type Clock,
  errorHandler,
  type IdentityVerifier,
  identityOf,
  type Logger,
  requestId,
  requireIdentity,
  type Service,
} from '@formgate/kit';
import express from 'express';
import { createUsageHandler, type PlanLimits } from './handlers/submission-received.handler.ts';
import type { UsageStore } from './store/usage-store.ts';

export interface BillingServiceDeps {
  store: UsageStore;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  identity: IdentityVerifier;
  plans: PlanLimits;
}

/** Billing: the usage meter and the quota view other services read from `billing.quota`. */
export function createBillingService(deps: BillingServiceDeps): Service {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId());
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/api/v1/billing/usage', requireIdentity(deps.identity), async (req, res) => {
    const { orgId } = identityOf(req);
    const period = deps.clock.now().toISOString().slice(0, 7);
    const used = await deps.store.getUsage({ orgId }, period);
    res.json({ period, submissions: { used, max: deps.plans.submissionsPerMonth(orgId) } });
  });
  app.use(errorHandler(deps.logger));

  let subscription: Subscription | undefined;
  return {
    name: 'billing',
    app,
    async start() {
      await deps.bus.ensureTopics(TOPIC_SPECS);
      subscription = await deps.bus.subscribe({
        group: 'billing.usage',
        topic: Topics.ingestSubmission,
        handler: createUsageHandler(deps),
        maxBatchSize: 1_000,
      });
    },
    async stop() {
      await subscription?.stop();
    },
  };
}
