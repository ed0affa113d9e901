import { createConsumers, type EventBus } from '@formgate/bus';
import { API_BODY_LIMIT_BYTES, TOPIC_SPECS, Topics } from '@formgate/contracts';
import {
  type Clock,
  createServiceApp,
  errorHandler,
  type IdentityVerifier,
  type Logger,
  type Metrics,
  requireIdentity,
  requireJson,
  type Service,
  type StoreHealth,
  type Tracing,
} from '@formgate/kit';
import express from 'express';
import { createOrganizationLifecycleHandler } from './handlers/organization-lifecycle.handler.ts';
import { flagsRoutes } from './routes/flags.routes.ts';
import { orgsRoutes } from './routes/orgs.routes.ts';
import { createSpamSettingsPublisher } from './spam-settings-publisher.ts';
import type { OrgsStores } from './store/orgs-stores.ts';

/** The stores (`OrgsStores`, each its own port) and the rest of what the service needs. */
export interface OrgsServiceDeps extends OrgsStores {
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
}

/** The orgs service: organization settings, feature flags and the audit log, kept from `orgs.organization`. */
export function createOrgsService(deps: OrgsServiceDeps): Service {
  const app = createServiceApp({
    observe: deps.metrics && { service: 'orgs', metrics: deps.metrics },
    tracing: deps.tracing,
  });
  // The organization's spam defaults (issue 14) reach `orgs.settings` through this outbox relay.
  const publisher = createSpamSettingsPublisher(deps);
  // The routers mount their routes at the table's paths (`mountRoute`); what their calls need first:
  app.use('/api/v1/orgs', requireIdentity(deps.identity), requireJson, express.json({ limit: API_BODY_LIMIT_BYTES }));
  app.use('/api/v1/flags', requireIdentity(deps.identity));
  app.use(orgsRoutes({ ...deps, onSpamChanged: () => publisher.kick() }), flagsRoutes(deps));
  app.use(errorHandler(deps.logger, deps.storeHealth));

  const consumers = createConsumers(deps.bus, TOPIC_SPECS, [
    {
      group: 'orgs.lifecycle',
      topic: Topics.orgsOrganization,
      handler: createOrganizationLifecycleHandler(deps),
      maxBatchSize: 200,
    },
  ]);
  return {
    name: 'orgs',
    app,
    async start() {
      await consumers.start(); // creates the topics
      await publisher.start();
    },
    async stop() {
      await consumers.stop();
      await publisher.stop();
    },
  };
}
