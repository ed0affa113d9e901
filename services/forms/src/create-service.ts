import { createConsumers, type EventBus, PROJECTION_GATHER_MS, type Subscription } from '@formgate/bus';
import { API_BODY_LIMIT_BYTES, SITE_ORG_ID, TOPIC_SPECS, Topics } from '@formgate/contracts';
import {
  AppError,
  type Clock,
  createServiceApp,
  errorHandler,
  type IdentityVerifier,
  type Ids,
  identityOf,
  type Logger,
  type Metrics,
  OPERATOR_ROLE,
  type PlanCatalog,
  type PrivacyKeys,
  requireIdentity,
  requireJson,
  type Service,
  type SigningSecret,
  type StoreHealth,
  type Tracing,
} from '@formgate/kit';
import type { BlobStore } from '@formgate/store';
import express from 'express';
import { createExportAudit } from './export-audit.ts';
import { createFileLinks } from './files/file-links.ts';
import type { FileScanner } from './files/file-scanner.ts';
import { createStraySweep, projectionCaughtUp, STRAY_SWEEP_MS, sweepStrays } from './files/stray-sweep.ts';
import { createFormPublisher } from './form-publisher.ts';
import { createBlockedCountsHandler } from './handlers/blocked-counts.handler.ts';
import { createFileScanHandler } from './handlers/file-scan.handler.ts';
import { createOrgPurgeHandler } from './handlers/org-purge.handler.ts';
import { createQuotaReleaseHandler } from './handlers/quota-release.handler.ts';
import { createSubmissionChangedHandler } from './handlers/submission-changed.handler.ts';
import { createSubmissionReceivedHandler } from './handlers/submission-received.handler.ts';
import { createSubmissionSettledHandler } from './handlers/submission-settled.handler.ts';
import { createRetentionSweep, RETENTION_SWEEP_MS } from './retention-sweep.ts';
import { erasureKeyRoutes, erasureRoutes } from './routes/erasures.routes.ts';
import { type FileLinkDeps, fileDownloadRoutes, fileLinkRoutes } from './routes/file-links.routes.ts';
import { formsRoutes } from './routes/forms.routes.ts';
import { restHookSampleRoutes } from './routes/rest-hook-sample.routes.ts';
import { retentionRoutes } from './routes/retention.routes.ts';
import type { FormsStores } from './store/forms-stores.ts';
import type { ErasureSweep } from './use-cases/erase-submitter.ts';
import { createPlanView } from './views/plan-view.ts';

export interface FormsServiceDeps {
  /** Built over a store whose migrations have run (`createSqliteFormsStores`, `createMongoFormsStores`). */
  stores: FormsStores;
  /** Uploaded files (ingest's blob store): deleted with their submissions, served through signed links. */
  blobs: BlobStore;
  bus: EventBus;
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
  /** The secret (≥ 32 characters) that signs links to files (`FILE_LINK_SECRET`); without it those routes answer 404. */
  fileLinkSecret?: SigningSecret;
  /** The plans in force (`loadPlans(PLANS_FILE)`): an organization's `forms` limit. Absent: no limit (tests of other things). */
  catalog?: PlanCatalog;
  /**
   * The instance's privacy keys (`createPrivacyKeys(PRIVACY_KEY)`, issue 31): submissions are indexed by the keyed
   * hashes of their addresses, and erasure receipts signed.
   */
  privacy: PrivacyKeys;
  /** What the deployment does after an erasure so no copy is left (`ErasureSweep`); absent: nothing more. */
  erasureSweep?: ErasureSweep;
  /**
   * The malware scanner (`createClamavScanner(CLAMAV_ADDRESS)`, issue 33): every file is scanned before it can be
   * downloaded. Absent: files are not scanned (and downloadable at once).
   */
  scanner?: FileScanner;
  /** How often the stray sweep runs (`STRAY_SWEEP_MS` by default). */
  straySweepMs?: number;
  /** How often the retention sweep runs (`RETENTION_SWEEP_MS` by default); tests run it on `retentionSweep.kick`. */
  retentionSweepMs?: number;
}

/** The forms service: forms and their settings, and the submissions read model. */
export function createFormsService(deps: FormsServiceDeps): Service {
  const { forms, submissions, changes, held, blocked, erasures, retention } = deps.stores;
  const publisher = createFormPublisher({ ...deps, forms, changes, erasures });
  // Each organization's plan, from billing's quota view; the default plan for one billing has not published.
  const plans = createPlanView();
  const { catalog } = deps;
  const formsLimit = catalog
    ? (orgId: string) => (orgId === SITE_ORG_ID ? null : catalog.resolve(plans.planOf(orgId)).limits.forms)
    : undefined;
  const retentionLimit = (orgId: string) =>
    catalog && orgId !== SITE_ORG_ID ? catalog.resolve(plans.planOf(orgId)).limits.retentionDays : null;
  const retentionSweep = createRetentionSweep({
    ...deps,
    retention,
    changes,
    retentionLimit,
    publishChanges: () => publisher.kick(),
    intervalMs: deps.retentionSweepMs ?? RETENTION_SWEEP_MS,
  });
  const strayDeps = {
    blobs: deps.blobs,
    submissions,
    caughtUp: projectionCaughtUp(deps.bus),
    clock: deps.clock,
    logger: deps.logger,
  };
  const straySweep = createStraySweep({ ...strayDeps, intervalMs: deps.straySweepMs ?? STRAY_SWEEP_MS });
  const app = createServiceApp({
    observe: deps.metrics && { service: 'forms', metrics: deps.metrics },
    tracing: deps.tracing,
  });
  const fileDeps: FileLinkDeps = {
    forms,
    submissions,
    clock: deps.clock,
    logger: deps.logger,
    scanning: deps.scanner !== undefined,
    ...(deps.fileLinkSecret ? { files: { blobs: deps.blobs, links: createFileLinks(deps.fileLinkSecret) } } : {}),
  };
  // The operator's sweep now (`formgate files sweep`, through the gateway's operator API): never routed from outside.
  app.post('/internal/files/sweep', requireIdentity(deps.identity), async (req, res) => {
    if (!identityOf(req).roles.includes(OPERATOR_ROLE)) throw new AppError('FORBIDDEN');
    res.json(await sweepStrays(strayDeps, { dryRun: req.query.dryRun === 'true' }));
  });
  // Public: anyone holding a receipt verifies it with these keys. Before `/api/v1/erasures`'s identity check.
  app.use(erasureKeyRoutes(deps.privacy));
  // The routers mount their routes at the table's paths (`mountRoute`); what every call of theirs needs first:
  for (const path of [
    '/api/v1/forms',
    '/api/v1/erasures',
    '/api/v1/subject-access',
    '/api/v1/retention',
    '/api/v1/hooks',
  ])
    app.use(path, requireIdentity(deps.identity), requireJson, express.json({ limit: API_BODY_LIMIT_BYTES }));
  const auditExport = createExportAudit({ bus: deps.bus, clock: deps.clock });
  app.use(
    formsRoutes({
      ...deps,
      auditExport,
      forms,
      submissions,
      changes,
      blocked,
      ...(formsLimit ? { formsLimit } : {}),
      retentionLimit,
      onFormChanged: () => publisher.kick(),
      onSubmissionChanged: () => void publisher.kick(),
    }),
    retentionRoutes({ retention, retentionLimit, forms, onRetentionChanged: () => void retentionSweep.kick() }),
    fileLinkRoutes(fileDeps),
    restHookSampleRoutes({ forms, submissions, clock: deps.clock }),
    erasureRoutes({
      ...deps,
      auditExport,
      erasures,
      changes,
      forms,
      submissions,
      ...(fileDeps.files ? { links: fileDeps.files.links } : {}),
      privacy: deps.privacy,
      publishChanges: () => publisher.kick(),
      ...(deps.erasureSweep ? { sweep: deps.erasureSweep } : {}),
    }),
  );
  // Public: the signed token is the credential (a plain `<a href>` must work).
  app.use(fileDownloadRoutes(fileDeps));
  app.use(errorHandler(deps.logger, deps.storeHealth));

  const consumers = createConsumers(deps.bus, TOPIC_SPECS, [
    {
      group: 'forms.submission-received',
      topic: Topics.ingestSubmission,
      handler: createSubmissionReceivedHandler({
        forms,
        submissions,
        blobs: deps.blobs,
        privacy: deps.privacy,
        scanFiles: deps.scanner !== undefined,
      }),
      maxBatchSize: 1_000,
      gatherMs: PROJECTION_GATHER_MS,
    },
    {
      group: 'forms.submission-counts',
      topic: Topics.formsSubmission,
      handler: createSubmissionChangedHandler(changes),
      maxBatchSize: 500,
      gatherMs: PROJECTION_GATHER_MS,
    },
    {
      group: 'forms.blocked-counts',
      topic: Topics.ingestAbuse,
      handler: createBlockedCountsHandler(blocked),
      maxBatchSize: 500,
    },
    {
      group: 'forms.quota-release',
      topic: Topics.billingQuota,
      handler: createQuotaReleaseHandler({ ...deps, held, changes, onReleased: () => void publisher.kick() }),
      maxBatchSize: 500,
    },
    {
      // Subscribed without a scanner too (it then reads nothing), so its lag and the erasure sweep's wait hold.
      group: 'forms.file-scan',
      topic: Topics.ingestSubmission,
      handler: deps.scanner
        ? createFileScanHandler({
            forms,
            submissions,
            blobs: deps.blobs,
            scanner: deps.scanner,
            clock: deps.clock,
            logger: deps.logger,
          })
        : async () => {},
      // A scan takes seconds: few files per batch. Without a scanner, large batches: it only commits its offsets.
      ...(deps.scanner ? { maxBatchSize: 16 } : { maxBatchSize: 1_000, gatherMs: PROJECTION_GATHER_MS }),
    },
    {
      group: 'forms.content-drop',
      topic: Topics.notificationsDelivery,
      handler: createSubmissionSettledHandler({ forms, submissions, blobs: deps.blobs, clock: deps.clock }),
      maxBatchSize: 500,
    },
    {
      group: 'forms.org-purge',
      topic: Topics.orgsOrganization,
      handler: createOrgPurgeHandler({
        forms,
        blobs: deps.blobs,
        onFormsDeleted: () => void publisher.kick(),
      }),
    },
  ]);
  let planView: Subscription | undefined;
  return {
    name: 'forms',
    app,
    async start() {
      await consumers.start(); // creates the topics the view reads
      planView = await deps.bus.replay(Topics.billingQuota, (m) => plans.apply(m));
      await publisher.start();
      void retentionSweep.start();
      void straySweep.start();
    },
    async stop() {
      await straySweep.stop();
      await retentionSweep.stop();
      await planView?.stop();
      await consumers.stop();
      await publisher.stop();
    },
  };
}
