import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventBus, Subscription } from '@formgate/bus';
import { TOPIC_SPECS, Topics } from '@formgate/contracts';
import { type Clock, createServiceApp, type Ids, type Logger, type Service } from '@formgate/kit';
import type { BlobStore } from '@formgate/store';
import { createAbuseExchange } from './abuse/abuse-exchange.ts';
import { createIngestHandler } from './ingest-handler.ts';
import { DEFAULT_LIMITS, type IngestLimits } from './limits.ts';
import { createRateLimitLayer, ipKeyer } from './spam/rate-limit.ts';
import { createLocalUsedSolutions } from './spam/used-solutions.ts';
import { createFormsView } from './views/forms-view.ts';
import { createQuotaView } from './views/quota-view.ts';

export interface IngestServiceDeps {
  bus: EventBus;
  blobs: BlobStore;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  publicBaseUrl: string;
  limits?: IngestLimits;
  /**
   * The abuse exchange (issue 14, `abuse/abuse-exchange.ts`). Distributed mode: `follow` the other instances'
   * reports, `instance` unique per process, `ipHashKey` the same on every instance (else per-IP limits stay per
   * instance). Default (embedded mode, one instance): publish only the blocked counts.
   */
  abuse?: { instance: string; follow: boolean; ipHashKey?: string | undefined };
}

export interface IngestService extends Service {
  /** The raw request handler for `/f/*` and `/form/*`, for hosts that route before any framework. */
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/** Ingest: the public endpoint. Stateless; its only state is the in-memory views of `forms.form` and `billing.quota`. */
export function createIngestService(deps: IngestServiceDeps): IngestService {
  const forms = createFormsView();
  const quota = createQuotaView();
  const abuseOptions = deps.abuse ?? { instance: 'embedded', follow: false };
  if (abuseOptions.follow && !abuseOptions.ipHashKey) {
    deps.logger.warn('ABUSE_HASH_KEY is not set: per-IP rate limits are counted per ingest instance');
  }
  const rateLimit = createRateLimitLayer({ ipKey: ipKeyer(abuseOptions.ipHashKey ?? randomBytes(32)) });
  /** ALTCHA replay memory, shared with the other instances through the exchange (the captcha layer claims in it). */
  const usedSolutions = createLocalUsedSolutions(() => deps.clock.now());
  const abuse = createAbuseExchange({
    ...deps,
    ...abuseOptions,
    counter: rateLimit.counter,
    solutions: usedSolutions,
  });
  const handle = createIngestHandler(
    {
      ...deps,
      limits: deps.limits ?? DEFAULT_LIMITS,
      forms,
      quota,
      rateLimit: { layer: rateLimit, onBlocked: (form, reason) => abuse.countBlocked(form, reason.layer, reason.rule) },
    },
    deps.logger,
  );
  const app = createServiceApp(() => ({ forms: forms.size }));
  app.use((req, res) => handle(req, res));
  const views: Subscription[] = [];

  return {
    name: 'ingest',
    app,
    handle,
    async start() {
      await deps.bus.ensureTopics(TOPIC_SPECS);
      views.push(await deps.bus.replay(Topics.formsForm, (m) => forms.apply(m)));
      views.push(await deps.bus.replay(Topics.billingQuota, (m) => quota.apply(m)));
      await abuse.start();
    },
    async stop() {
      await Promise.all(views.splice(0).map((v) => v.stop()));
      await abuse.stop();
    },
  };
}
