import {
  type BusMessage,
  createConsumers,
  type EventBus,
  type SubscribeOptions,
  type Subscription,
} from '@formgate/bus';
import { TOPIC_SPECS, Topics } from '@formgate/contracts';
import {
  AppError,
  type Clock,
  createServiceApp,
  errorHandler,
  type IdentityVerifier,
  type Ids,
  type Logger,
  type Metrics,
  requireIdentity,
  requireJson,
  type Service,
  type SigningSecret,
  type StoreHealth,
  settledRoute,
  type Tracing,
} from '@formgate/kit';
import type { Mailer } from '@formgate/mail';
import express from 'express';
import { createDeliveryChannels } from './channels/index.ts';
import { createDeferredReleaser } from './deliveries/deferred-releaser.ts';
import { deliveriesRoutes } from './deliveries/deliveries.routes.ts';
import { createDeliveryRunner } from './deliveries/delivery-runner.ts';
import { createEmailQuota } from './deliveries/email-quota.ts';
import { createFormsViewHandler } from './deliveries/forms-view.handler.ts';
import { createFormsViewSettled, type FormsViewSettled } from './deliveries/forms-view-settled.ts';
import { createRetryWorker } from './deliveries/retry-worker.ts';
import { createSettleSweep } from './deliveries/settle-sweep.ts';
import { createSubmissionChangesHandler } from './deliveries/submission-changes.handler.ts';
import { createSubmissionReceivedHandler } from './deliveries/submission-received.handler.ts';
import { DELIVERY_TUNING } from './deliveries/tuning.ts';
import type { Composer } from './email/composer.ts';
import type { KeptMail } from './email/kept-mail.ts';
import { composeRecipientVerification } from './email/recipient-verification.tsx';
import { restHooksRoutes } from './endpoints/rest-hooks.routes.ts';
import { webhooksRoutes } from './endpoints/webhooks.routes.ts';
import { eventsRoutes } from './live/events.routes.ts';
import { createRecipientsOrgHandler } from './recipients/org-events.handler.ts';
import { createRecipientRoutes } from './recipients/recipients.routes.ts';
import type { NotificationStores, RecipientStore, WebhookEndpointStore } from './store/index.ts';

export interface NotificationsServiceDeps {
  /** The delivery pipeline's stores, migrated (`migrateSqliteNotifications` / `migrateMongoNotifications`). */
  stores: NotificationStores;
  bus: EventBus;
  mailer: Mailer;
  /** The copies of sent mails `mailer` keeps (embedded mode's mail files), forgotten on an erasure; none without. */
  keptMail?: KeptMail;
  clock: Clock;
  /** The process's tracing (`startTracing`); absent: off. */
  tracing?: Tracing | undefined;
  ids: Ids;
  logger: Logger;
  /** The process's stores, probed by a real round trip: an unknown error while one is down answers 503, not 500. */
  storeHealth?: StoreHealth;
  /** The process's metrics (`formgate_http_*` of this service's routes); none recorded without. */
  metrics?: Metrics;
  identity: IdentityVerifier;
  compose: Composer;
  /** The organizations' notification addresses (double opt-in): only verified ones are ever mailed. */
  recipients: RecipientStore;
  /** Signs the verification links of notification addresses; the same on every instance, ≥ 32 characters. */
  linkSecret: SigningSecret;
  /** The dashboard's base URL, for links in mails. */
  publicUrl: string;
  /** The forms' webhook endpoints. */
  endpoints: WebhookEndpointStore;
  /** `WEBHOOKS_ALLOW_PRIVATE_TARGETS`: webhooks may go to loopback and private addresses (tests, self-hosting). */
  allowPrivateTargets: boolean;
  /** One webhook attempt's deadline (default 10 s). */
  webhookTimeoutMs?: number;
  /** How often the retry worker looks for due attempts (default 1 s). */
  retryIntervalMs?: number;
  /** Jitter source of the retry schedule (tests pin it). */
  random?: () => number;
  /** The attempt lease (default `DELIVERY_TUNING.attemptLeaseMs`, 3 min; `NOTIFICATIONS_ATTEMPT_LEASE_MS`). */
  attemptLeaseMs?: number;
}

export type NotificationsService = Service & {
  /** Runs a pass of the retry worker now; resolves when it is over (tests, after moving their clock). */
  runDueAttempts(): Promise<void>;
  /**
   * Runs a pass of the settle sweep now (no-store submissions left half-settled, issue 31); resolves when it is over
   * (tests, after moving their clock past `DELIVERY_TUNING.settleGraceMs`).
   */
  settleSubmissions(): Promise<void>;
  /** Whether the forms view holds a change of a form (read your own settings; also `/internal/settled`). */
  settled: FormsViewSettled;
};

/**
 * The service's HTTP routes: the recipients', the delivery log's, the webhook endpoints' (REST hooks' too) and the
 * event streams'.
 */
function createApp(
  deps: NotificationsServiceDeps,
  deliveries: express.Router,
  settled: FormsViewSettled,
  events: express.Router,
) {
  const app = createServiceApp({
    observe: deps.metrics && { service: 'notifications', metrics: deps.metrics },
    tracing: deps.tracing,
  });
  app.get('/internal/settled', settledRoute(settled));
  app.use(
    createRecipientRoutes({
      ...deps,
      store: deps.recipients,
      composeVerification: composeRecipientVerification,
    }),
  );
  // The routers mount their routes at the table's paths (`mountRoute`); what every `/api/v1/forms` call needs first:
  for (const path of ['/api/v1/forms', '/api/v1/hooks'])
    app.use(path, requireIdentity(deps.identity), requireJson, express.json({ limit: '16kb' }));
  app.use(deliveries, webhooksRoutes(deps), restHooksRoutes(deps), events);
  app.use((_req, _res, next) => next(new AppError('NOT_FOUND')));
  app.use(errorHandler(deps.logger, deps.storeHealth));
  return app;
}

/**
 * Every consumer group with its topic and handler. Webhooks and emails of a submission are in two groups (ADR 54):
 * a webhook never waits behind mails (a stalled SMTP server holds the emails' sends and backlog only). Their first
 * attempts go on after a batch is committed (ADR 64): `stop` waits for them.
 */
function consumerGroups(
  deps: NotificationsServiceDeps,
  handlers: Record<'changes' | 'webhooks' | 'emails', (batch: BusMessage[]) => Promise<void>>,
): SubscribeOptions[] {
  return [
    {
      group: 'notifications.recipients-org',
      topic: Topics.orgsOrganization,
      handler: createRecipientsOrgHandler({ store: deps.recipients, gone: deps.stores.gone }),
    },
    { group: 'notifications.forms-view', topic: Topics.formsForm, handler: createFormsViewHandler(deps.stores) },
    { group: 'notifications.submission-changes', topic: Topics.formsSubmission, handler: handlers.changes },
    {
      group: 'notifications.webhooks',
      topic: Topics.ingestSubmission,
      handler: handlers.webhooks,
      fromBeginning: false,
      maxBatchSize: 100,
      gatherMs: DELIVERY_TUNING.deliveryGatherMs,
    },
    {
      group: 'notifications.deliveries',
      topic: Topics.ingestSubmission,
      handler: handlers.emails,
      fromBeginning: false,
      maxBatchSize: 100,
      gatherMs: DELIVERY_TUNING.deliveryGatherMs,
    },
  ];
}

/**
 * Notifications: the delivery pipeline (effect records, first attempt in the consumer, retries, outcome events,
 * `submission.settled` of no-store forms' submissions and its sweep) and the delivery log API; webhook endpoints per form (`/api/v1/forms/{id}/webhooks`); the organizations' notification addresses (double opt-in, `/api/v1/notification-emails`).
 * Consumers: `orgs.organization` (names for the verification mail, purges), `forms.form` (the view, first), `forms.submission` (deletions),
 * `ingest.submission` twice: `notifications.webhooks` (webhooks) and `notifications.deliveries` (emails), each from
 * the log end on a first start (submissions from before the service existed are not notified).
 */
export function createNotificationsService(deps: NotificationsServiceDeps): NotificationsService {
  // The emails quota (`billing.quota`, replayed at start): emails over it are deferred, released when it allows.
  const quota = createEmailQuota();
  const channels = createDeliveryChannels({ ...deps, quota });
  const runner = createDeliveryRunner({ ...deps, channels });
  const release = createDeferredReleaser({ ...deps, runner, quota });
  const worker = createRetryWorker({ ...deps, runner, release, intervalMs: deps.retryIntervalMs });
  const sweep = createSettleSweep({ ...deps, settler: runner.settler });
  const views: Subscription[] = [];

  const api = deliveriesRoutes({ ...deps, runner, channels });
  const settled = createFormsViewSettled(deps.stores.views);
  const events = eventsRoutes(deps);
  const app = createApp(deps, api.router, settled, events.router);

  const handlerDeps = { ...deps, runner, channels };
  const handlers = {
    changes: createSubmissionChangesHandler(handlerDeps),
    webhooks: createSubmissionReceivedHandler(handlerDeps, ['webhook']),
    emails: createSubmissionReceivedHandler(handlerDeps, ['email']),
  };
  const consumers = createConsumers(deps.bus, TOPIC_SPECS, consumerGroups(deps, handlers));
  return {
    name: 'notifications',
    app,
    async start() {
      // The quota view first: the first submissions handled must see the organizations over their emails quota.
      await deps.bus.ensureTopics(TOPIC_SPECS);
      views.push(await deps.bus.replay(Topics.billingQuota, (m) => quota.apply(m)));
      await consumers.start();
      void worker.start();
      void sweep.start();
    },
    async stop() {
      // Outcomes the store does not take now are left to their lease, as after a crash: stopping waits for no outage.
      runner.stop();
      events.closeAll();
      await worker.stop();
      await sweep.stop();
      await api.drain();
      await consumers.stop();
      await Promise.all(Object.values(handlers).map((h) => h.drain()));
      await Promise.all(views.splice(0).map((v) => v.stop()));
    },
    runDueAttempts: async () => void (await worker.kick()),
    settleSubmissions: async () => void (await sweep.kick()),
    settled,
  };
}
