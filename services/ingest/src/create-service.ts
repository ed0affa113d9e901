import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventBus, Subscription } from '@formgate/bus';
import { SITE_ORG_ID, TOPIC_SPECS, Topics } from '@formgate/contracts';
import {
  type Clock,
  createServiceApp,
  type Ids,
  type Logger,
  type Metrics,
  type PlanCatalog,
  type Service,
  settledRoute,
  type Tracing,
} from '@formgate/kit';
import type { BlobStore } from '@formgate/store';
import { createAbuseExchange } from './abuse/abuse-exchange.ts';
import { createClientIpResolver } from './client-ip.ts';
import { createIngestHandler } from './ingest-handler.ts';
import { DEFAULT_LIMITS, type IngestLimits } from './limits.ts';
import { createSettled, type Settled } from './settle.ts';
import { type AltchaDifficulty, createAltcha } from './spam/altcha.ts';
import { type CaptchaVerifyConfig, createCaptchaLayer, DEFAULT_CAPTCHA_VERIFY } from './spam/captcha.ts';
import { createSpamEvaluator, type OnBlocked } from './spam/evaluate.ts';
import { createSpamLayers } from './spam/index.ts';
import type { SpamLayer } from './spam/layer.ts';
import { createRateLimitLayer, ipKeyer } from './spam/rate-limit.ts';
import { createLocalUsedSolutions, type UsedSolutions } from './spam/used-solutions.ts';
import { createUploadTokens } from './uploads/upload-tokens.ts';
import type { DirectUploadTarget } from './uploads/uploaded-files.ts';
import { createFormsView } from './views/forms-view.ts';
import { createOrgSettingsView } from './views/org-settings-view.ts';
import { createQuotaView } from './views/quota-view.ts';

export interface IngestServiceDeps {
  bus: EventBus;
  blobs: BlobStore;
  clock: Clock;
  /** The process's tracing (`startTracing`); absent: off. */
  tracing?: Tracing | undefined;
  ids: Ids;
  logger: Logger;
  publicBaseUrl: string;
  limits?: IngestLimits;
  /** `INGEST_SECRET`: signs ALTCHA challenges and time-trap stamps (a key per form), the same on every instance. */
  secret: string;
  /** `INGEST_SECRET_PREVIOUS` (ADR 50): verifies stamps and challenges signed before a rotation, signs nothing. */
  previousSecret?: string | undefined;
  /** Where captcha tokens are verified (default: the providers' own siteverify URLs, 3 s). */
  captcha?: CaptchaVerifyConfig;
  /** ALTCHA solutions already used (default: this instance's memory). */
  usedSolutions?: UsedSolutions;
  altchaDifficulty?: AltchaDifficulty;
  /** Peers whose `x-formgate-client-ip` is believed (the gateway's addresses; IPs or CIDR ranges). */
  trustedProxies?: readonly string[];
  /** Spam layers built elsewhere (rate limits, captcha), placed by name in the fixed order (`spam/index.ts`). */
  extraSpamLayers?: readonly SpamLayer[];
  /** Told of each request a spam layer blocked (the per-form blocked counter). */
  onBlocked?: OnBlocked;
  /**
   * The abuse exchange (issue 14, `abuse/abuse-exchange.ts`). Distributed mode: `follow` the other instances'
   * reports, `instance` unique per process. Default (embedded mode, one instance): publish only the blocked counts.
   */
  abuse?: { instance: string; follow: boolean };
  /** The process's metrics: `formgate_ingest_submissions_total` and the HTTP metrics of the public endpoint. */
  metrics?: Metrics;
  /** The plans in force (`loadPlans(PLANS_FILE)`): each organization's `maxFileMb`. Absent: no plan file limits. */
  catalog?: PlanCatalog;
  /** Presigned PUT URLs of the blob store (S3, `FILE_STORE=s3`); absent: direct uploads go through ingest. */
  directUploads?: DirectUploadTarget;
}

export interface IngestService extends Service {
  /** The raw request handler for `/f/*` and `/form/*`, for hosts that route before any framework. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Whether this instance's views hold a change of settings (read your own settings; also `/internal/settled`). */
  settled: Settled;
}

/**
 * Ingest: the public endpoint. Stateless; its only state is the in-memory views of `forms.form`, `billing.quota` and
 * `orgs.settings`.
 */
export function createIngestService(deps: IngestServiceDeps): IngestService {
  const forms = createFormsView();
  const quota = createQuotaView();
  const { catalog } = deps;
  // Per-IP keys of the rate limits: an HMAC with a key derived from INGEST_SECRET (the same on every instance).
  const ipHashKey = createHmac('sha256', deps.secret).update('formgate ingest: rate-limit address hashes').digest();
  const rateLimit = createRateLimitLayer({ ipKey: ipKeyer(ipHashKey) });
  const localSolutions = deps.usedSolutions ? undefined : createLocalUsedSolutions(() => deps.clock.now());
  const abuse = createAbuseExchange({
    ...deps,
    ...(deps.abuse ?? { instance: 'embedded', follow: false }),
    counter: rateLimit.counter,
    ...(localSolutions ? { solutions: localSolutions } : {}),
  });
  const altcha = createAltcha({
    secret: deps.secret,
    previousSecret: deps.previousSecret,
    used: deps.usedSolutions ?? localSolutions ?? createLocalUsedSolutions(() => deps.clock.now()),
    clock: deps.clock,
    ...(deps.altchaDifficulty ? { difficulty: deps.altchaDifficulty } : {}),
  });
  const captcha = createCaptchaLayer({ verify: deps.captcha ?? DEFAULT_CAPTCHA_VERIFY, altcha, logger: deps.logger });
  const orgSettings = createOrgSettingsView();
  const layers = createSpamLayers({
    secret: deps.secret,
    previousSecret: deps.previousSecret,
    extraLayers: [captcha, rateLimit, ...(deps.extraSpamLayers ?? [])],
  });
  const spam = createSpamEvaluator({
    ...layers,
    onBlocked: (form, reason) => {
      abuse.countBlocked(form, reason.layer, reason.rule);
      deps.onBlocked?.(form, reason);
    },
  });
  const handle = createIngestHandler(
    {
      ...deps,
      limits: deps.limits ?? DEFAULT_LIMITS,
      forms,
      quota,
      orgSettings,
      spam,
      stamps: layers.stamps,
      altcha,
      clientIp: createClientIpResolver(deps.trustedProxies ?? []),
      uploadTokens: createUploadTokens({ current: deps.secret, previous: deps.previousSecret }),
      // The site organization's forms (ADR 23) are under no plan.
      ...(catalog
        ? {
            plans: {
              maxFileMb: (orgId: string) =>
                orgId === SITE_ORG_ID ? null : catalog.resolve(quota.planOf(orgId)).limits.maxFileMb,
              storageFull: (orgId: string) => orgId !== SITE_ORG_ID && quota.isStorageFull(orgId),
            },
          }
        : {}),
      ...(deps.metrics ? { observeStage: deps.metrics.observeIngestStage } : {}),
    },
    deps.logger,
  );
  // No HTTP metrics middleware here: the raw handler records its own (this app only adds `/healthz`).
  const settled = createSettled({ forms, orgSettings });
  const app = createServiceApp({ health: () => ({ forms: forms.size }), tracing: deps.tracing });
  app.get('/internal/settled', settledRoute(settled));
  app.use((req, res) => handle(req, res));
  const views: Subscription[] = [];

  return {
    name: 'ingest',
    app,
    handle,
    settled,
    async start() {
      await deps.bus.ensureTopics(TOPIC_SPECS);
      views.push(await deps.bus.replay(Topics.formsForm, (m) => forms.apply(m)));
      views.push(await deps.bus.replay(Topics.billingQuota, (m) => quota.apply(m)));
      views.push(await deps.bus.replay(Topics.orgsSettings, (m) => orgSettings.apply(m)));
      await abuse.start();
    },
    async stop() {
      await Promise.all(views.splice(0).map((v) => v.stop()));
      await abuse.stop();
    },
  };
}
