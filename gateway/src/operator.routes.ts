import { createHash, timingSafeEqual } from 'node:crypto';
import type { SiteOrganization } from '@formgate/accounts';
import type { DeadLetterSelection, EventBus } from '@formgate/bus';
import { AppError, TOPIC_SPECS } from '@formgate/contracts';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { z } from 'zod';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** `Authorization: Bearer <operator token>`, compared in constant time on digests (any length is safe). */
function requireOperator(token: string) {
  const expected = digest(token);
  return (req: Request, _res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    next(presented && timingSafeEqual(digest(presented), expected) ? undefined : new AppError('UNAUTHENTICATED'));
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

export interface OperatorDeps {
  token: string;
  bus: EventBus;
  /** The site organization (ADR 23): `POST /api/ops/site/owners` makes an account its owner. */
  site?: Pick<SiteOrganization, 'setOwner'>;
}

const selectionOf = (body: z.infer<typeof ReplayBody>): DeadLetterSelection =>
  'all' in body ? 'all' : 'offsets' in body ? { offsets: body.offsets } : { offsets: { from: body.from, to: body.to } };

/**
 * The operator API (`/api/ops/*`), outside the organizations' route table: one deployment-wide bearer token, never
 * an organization's key. Dead letters of every topic: counts, listing, replay (idempotent per dead letter).
 */
export function operatorRoutes(deps: OperatorDeps) {
  const router = Router();
  router.use(requireOperator(deps.token));

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
