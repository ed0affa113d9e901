import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { OrganizationDirectory, SiteOrganization } from '@formgate/accounts';
import type { DeadLetterSelection, EventBus } from '@formgate/bus';
import {
  AppError,
  CONSUMER_GROUPS,
  encodeEvent,
  type SubscriptionChanged,
  TOPIC_SPECS,
  Topics,
} from '@formgate/contracts';
import type { PlanCatalog } from '@formgate/kit';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { z } from 'zod';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * `Authorization: Bearer <operator token>`, compared in constant time on digests (any length is safe). During a
 * rotation (ADR 50) the previous token is accepted too, until the operator removes it.
 */
function requireOperator(token: string, previous?: string) {
  const accepted = [token, ...(previous ? [previous] : [])].map(digest);
  return (req: Request, _res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    const given = presented ? digest(presented) : undefined;
    // Every accepted digest is compared (no early exit): the time taken does not say which one matched.
    let ok = false;
    for (const expected of accepted) ok = (given !== undefined && timingSafeEqual(given, expected)) || ok;
    next(ok ? undefined : new AppError('UNAUTHENTICATED'));
  };
}

const TOPICS = TOPIC_SPECS.map((t) => t.name);
const TopicParam = z.enum(TOPICS as [string, ...string[]]);
const Offset = z.string().regex(/^\d{1,19}$/, 'expected a decimal offset');
const ListQuery = z.object({ from: Offset.optional(), limit: z.coerce.number().int().min(1).max(500).default(50) });
const ReplayBody = z.union([
  z.strictObject({ all: z.literal(true) }),
  z.strictObject({ offsets: z.array(Offset).min(1).max(1_000) }),
  z.strictObject({ from: Offset, to: Offset }),
]);

const SiteOwnerBody = z.strictObject({ email: z.string().trim().email().max(320) });

const GROUPS = CONSUMER_GROUPS.map((g) => g.group);
const LagQuery = z.object({ group: z.enum(GROUPS as [string, ...string[]]).optional() });
const OrgsQuery = z.object({ limit: z.coerce.number().int().min(1).max(1_000).default(200) });
const OrgParam = z.string().min(1).max(200);

export interface OperatorDeps {
  token: string;
  /** During a rotation (ADR 50): the replaced token, still accepted (`OPERATOR_TOKEN_PREVIOUS`, `operator-token.previous`). */
  previousToken?: string | undefined;
  bus: EventBus;
  /** The site organization (ADR 23): `POST /api/ops/site/owners` makes an account its owner. */
  site?: Pick<SiteOrganization, 'setOwner'>;
  /** Organizations by id or slug (`createAccounts().organizations`): `/api/ops/orgs*` answer 404 without. */
  organizations?: Pick<OrganizationDirectory, 'find' | 'list'>;
  /** The plans in force (`loadPlans(PLANS_FILE)`), which `PUT /api/ops/orgs/:org/plan` accepts. */
  plans?: PlanCatalog;
  /** Time of operator plan grants (default: the system clock). */
  now?: () => Date;
  /**
   * Answers `GET /api/ops/orgs/:org/audit-log/chain` as the organization's own chain route would
   * (`GET /api/v1/orgs/audit-log/chain`, orgs service), for `formgate audit verify` over every organization.
   */
  auditChain?: (orgId: string, req: Request, res: Response, next: NextFunction) => Promise<void>;
  /**
   * Answers `POST /api/ops/files/sweep[?dryRun=true]` with the forms service's stray sweep (issue 33): blobs no
   * stored submission names, older than a day, deleted (or only counted).
   */
  fileSweep?: (req: Request, res: Response, next: NextFunction) => Promise<void>;
}

const selectionOf = (body: z.infer<typeof ReplayBody>): DeadLetterSelection =>
  'all' in body ? 'all' : 'offsets' in body ? { offsets: body.offsets } : { offsets: { from: body.from, to: body.to } };

/**
 * The operator API (`/api/ops/*`), outside the organizations' route table: one deployment-wide bearer token, never
 * an organization's key. Dead letters of every topic: counts, listing, replay (idempotent per dead letter); consumer
 * lag of every group (`CONSUMER_GROUPS`); organizations, their plan (an operator grant, ADR 49) and their audit
 * chain.
 */
export function operatorRoutes(deps: OperatorDeps) {
  const router = Router();
  router.use(requireOperator(deps.token, deps.previousToken));

  router.get('/dead-letters', async (_req, res) => {
    const counts = await Promise.all(
      TOPICS.map(async (topic) => ({ topic, ...(await deps.bus.deadLetters.count(topic)) })),
    );
    res.json({ data: counts });
  });

  router.get('/dead-letters/:topic', async (req, res) => {
    const topic = TopicParam.parse(req.params.topic);
    const { from, limit } = ListQuery.parse(req.query);
    const letters = await deps.bus.deadLetters.list(topic, { limit, ...(from ? { from } : {}) });
    res.json({ data: letters });
  });

  router.post('/dead-letters/:topic/replay', express.json({ limit: '64kb' }), async (req, res) => {
    const topic = TopicParam.parse(req.params.topic);
    res.json(await deps.bus.deadLetters.replay(topic, selectionOf(ReplayBody.parse(req.body))));
  });

  router.get('/consumer-lag', async (req, res) => {
    const { group } = LagQuery.parse(req.query);
    const rows = await deps.bus.lag(group ? CONSUMER_GROUPS.filter((g) => g.group === group) : CONSUMER_GROUPS);
    res.json({ data: rows, total: rows.reduce((n, r) => n + r.lag, 0) });
  });

  router.post('/files/sweep', async (req, res, next) => {
    if (!deps.fileSweep) throw new AppError('NOT_FOUND');
    const { dryRun } = z.object({ dryRun: z.enum(['true', 'false']).optional() }).parse(req.query);
    req.url = `/internal/files/sweep${dryRun === 'true' ? '?dryRun=true' : ''}`;
    await deps.fileSweep(req, res, next);
  });

  router.get('/orgs', async (req, res) => {
    if (!deps.organizations) throw new AppError('NOT_FOUND');
    const { limit } = OrgsQuery.parse(req.query);
    res.json({ data: await deps.organizations.list(limit) });
  });

  router.get('/orgs/:org/audit-log/chain', async (req, res, next) => {
    const { organizations, auditChain } = deps;
    if (!organizations || !auditChain) throw new AppError('NOT_FOUND');
    const org = await organizations.find(OrgParam.parse(req.params.org));
    if (!org) throw new AppError('NOT_FOUND', 'No organization has this id or slug');
    await auditChain(org.id, req, res, next);
  });

  router.put('/orgs/:org/plan', express.json({ limit: '16kb' }), async (req, res) => {
    const { organizations, plans } = deps;
    if (!organizations || !plans) throw new AppError('NOT_FOUND');
    const ids = plans.plans.map((p) => p.id);
    const { plan } = z.strictObject({ plan: z.enum(ids as [string, ...string[]]) }).parse(req.body);
    const org = await organizations.find(OrgParam.parse(req.params.org));
    if (!org) throw new AppError('NOT_FOUND', 'No organization has this id or slug');
    const changedAt = (deps.now?.() ?? new Date()).toISOString();
    // The default plan is "no subscription": billing then shows none, as for an organization that never had one.
    const onDefault = plan === plans.defaultPlan;
    const data: SubscriptionChanged['data'] = {
      orgId: org.id,
      planId: plan,
      status: onDefault ? null : 'active',
      interval: null,
      periodStart: onDefault ? null : changedAt,
      periodEnd: null,
      cancelAtPeriodEnd: false,
      trialEnd: null,
      stripeSubscriptionId: null,
      changedAt,
      source: 'operator',
    };
    const event = {
      id: randomUUID(),
      type: 'subscription.changed' as const,
      version: 1 as const,
      occurredAt: changedAt,
      data,
    };
    // Acknowledged by the log before the answer: billing applies it (newest `changedAt` wins, ADR 49).
    await deps.bus.publish(Topics.billingSubscription, [
      { key: org.id, value: encodeEvent(Topics.billingSubscription, event) },
    ]);
    // The organization's audit log says so (after the change: a failure here is answered, the plan still applies).
    await deps.bus.publish(Topics.orgsOrganization, [
      {
        key: org.id,
        value: encodeEvent(Topics.orgsOrganization, {
          id: randomUUID(),
          type: 'plan.changed',
          version: 1,
          occurredAt: changedAt,
          data: { orgId: org.id, actor: null, plan, status: data.status ?? 'none', source: 'operator' },
        }),
      },
    ]);
    res.json({ orgId: org.id, slug: org.slug, plan, eventId: event.id, changedAt });
  });

  router.post('/site/owners', express.json({ limit: '16kb' }), async (req, res) => {
    if (!deps.site) throw new AppError('NOT_FOUND');
    const { email } = SiteOwnerBody.parse(req.body);
    const outcome = await deps.site.setOwner(email);
    if (outcome === 'no-such-user') throw new AppError('NOT_FOUND', 'No account has this email; sign up first');
    res.json({ email, outcome });
  });

  return router;
}

/**
 * Dead letters not yet replayed, per topic, for `/healthz`: counted in the background at most every `intervalMs`
 * (counting reads whole `.dlq` topics), so health checks never wait on it. `null` until the first count.
 */
export function createDeadLetterGauge(bus: EventBus, intervalMs = 60_000) {
  let last: { pending: Record<string, number>; at: string } | null = null;
  let counting: Promise<void> | undefined;
  let countedAt = 0;
  const refresh = () => {
    if (counting || Date.now() - countedAt < intervalMs) return;
    countedAt = Date.now();
    counting = Promise.all(TOPICS.map(async (t) => [t, (await bus.deadLetters.count(t)).pending] as const))
      .then((pairs) => {
        last = { pending: Object.fromEntries(pairs), at: new Date().toISOString() };
      })
      .catch(() => {})
      .finally(() => {
        counting = undefined;
      });
  };
  return {
    snapshot() {
      refresh();
      return last;
    },
  };
}
