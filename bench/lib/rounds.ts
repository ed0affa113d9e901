import { execFileSync } from 'node:child_process';
import { type BurstResult, runBurst } from './burst.ts';
import type { BenchForm } from './formgate-api.ts';
import { PAYLOADS, type Payload, spamPayload } from './payloads.ts';
import { type ServerProcess, sleep } from './processes.ts';
import { waitForIdle } from './quiesce.ts';
import { snapshotStages, stageCosts } from './stages.ts';
import type { FormgateTarget } from './targets.ts';
import { errorCount, prepareWrk, runWrk, type WrkResult } from './wrk.ts';

export interface BenchSettings {
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  burstAmount: number;
  burstConnections: number;
}

/** A throughput run against Formgate, with the store's view of it afterwards. */
export interface IngestRun extends WrkResult {
  /** The form's dashboard count once it stopped moving (≥ requests: wrk drops answers in flight at the end). */
  stored: number;
  /** From wrk's end until the dashboard count reached wrk's requests, ms (null: never). */
  projectionLagMs: number | null;
  /** µs per accepted submission of each stage (`stageCosts`), when the target serves its metrics. */
  stagesUs?: Record<string, number> | null;
  /** P2: connections between the gateway and ingest left in TIME_WAIT right after the load (P3). */
  timeWait?: number;
}

export type Measurement = 'B0' | 'B1' | 'P1' | 'P1j' | 'P1m' | 'P1o' | 'P1s' | 'P2' | 'P2i' | 'P2w';

export interface RoundResult {
  round: number;
  runs: Partial<Record<Measurement, WrkResult | IngestRun>>;
  P7: BurstResult | null;
}

export interface RoundContext {
  settings: BenchSettings;
  workDir: string;
  script: string;
  b0: ServerProcess;
  b1: ServerProcess;
  formgate: FormgateTarget;
  /** The P2 hook: a distributed deployment when one could be started (see distributed.ts). */
  distributed: FormgateTarget | null;
  /** Integrity problems found so far; each one fails the bench. */
  problems: string[];
  /** Worth a look but not a failure (e.g. a burst answered partly with 503). */
  warnings: string[];
  log: (line: string) => void;
  /** Every server process; each measurement starts only once all of them are idle. */
  pids: number[];
}

const INGEST_MEASUREMENTS: [Measurement, Payload][] = [
  ['P1', PAYLOADS.urlencoded],
  ['P1j', PAYLOADS.json],
  ['P1m', PAYLOADS.multipart],
];

async function freshForm(target: FormgateTarget, name: string): Promise<BenchForm> {
  const form = await target.api.createForm(name);
  await target.api.waitUntilIngestKnows(form.key);
  return form;
}

/** Lets leftovers of the previous measurement (consumers catching up, GC) finish before the next one starts. */
async function quiet(ctx: RoundContext, label: string) {
  const ms = await waitForIdle(ctx.pids);
  if (ms > 2_000) ctx.log(`${label}: waited ${(ms / 1000).toFixed(1)} s for the servers to go idle`);
}

function wrk(ctx: RoundContext, url: string, payload: Payload, seconds: number, origin?: string) {
  return runWrk({
    url,
    payload,
    seconds,
    ...(origin ? { origin } : {}),
    connections: ctx.settings.connections,
    workDir: ctx.workDir,
    script: ctx.script,
  });
}

function checkErrors(ctx: RoundContext, label: string, r: WrkResult) {
  if (errorCount(r) > 0) ctx.problems.push(`${label}: ${JSON.stringify(r.errors)} of ${r.requests} requests`);
}

/**
 * wrk against `form` (already holding `probes` submissions), then waits until its dashboard count covers every
 * answered request; a shortfall is an integrity problem.
 */
async function loadForm(
  ctx: RoundContext,
  target: FormgateTarget,
  label: string,
  form: BenchForm,
  payload: Payload,
  opts: { probes?: number; origin?: string; pause?: readonly number[] } = {},
): Promise<IngestRun> {
  const probes = opts.probes ?? 0;
  const before = target.metricsUrls ? await snapshotStages(target.metricsUrls) : null;
  const pause = opts.pause ?? [];
  signalAll(pause, 'SIGSTOP');
  let r: WrkResult;
  try {
    r = await wrk(ctx, `${target.server.url}/f/${form.key}`, payload, ctx.settings.seconds, opts.origin);
  } finally {
    signalAll(pause, 'SIGCONT');
  }
  const stagesUs = before && target.metricsUrls ? stageCosts(before, await snapshotStages(target.metricsUrls)) : null;
  checkErrors(ctx, label, r);
  const answered = r.requests - r.errors.status;
  const settled = await target.api.settle(form.id, probes + answered, 60_000);
  if (settled.count < probes + answered) {
    ctx.problems.push(`${label}: ${answered} answered 2xx/3xx but the dashboard count stopped at ${settled.count}`);
  }
  return { ...r, stored: settled.count - probes, projectionLagMs: settled.reachedMs, stagesUs };
}

/** Sends `signal` to each process that is still there (SIGSTOP / SIGCONT around a distributed run). */
function signalAll(pids: readonly number[], signal: NodeJS.Signals) {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone: the run's own checks report what it did not do.
    }
  }
}

/**
 * wrk against a fresh form, then waits until the dashboard shows at least every answered submission. `pause`: the
 * processes stopped while wrk runs and continued after it (the distributed deployment's consumers, for P2 and P2i).
 */
async function measureIngest(
  ctx: RoundContext,
  target: FormgateTarget,
  label: string,
  payload: Payload,
  pause?: readonly number[],
) {
  const form = await freshForm(target, label);
  await quiet(ctx, label);
  return loadForm(ctx, target, label, form, payload, { pause });
}

/**
 * Every spam layer on except the captcha (issue 14): time-trap 1 s, origins `flag` with an allow-list, rate limits
 * far above the load (each request is counted in all three scopes), 20 blocked words and domains, a link limit,
 * disposable addresses. The payload carries a valid stamp and nothing the rules match, and wrk sends an allowed
 * `Origin`: every submission passes every layer's full check and is stored clean, as real traffic mostly is.
 */
export const P1S_SPAM_SETTINGS = {
  timeTrapSeconds: 1,
  origins: 'flag',
  captcha: null,
  rateLimit: { perIpPerMinute: 1_000_000, perFormPerMinute: 1_000_000, perOrgPerMinute: 10_000_000 },
  rules: {
    blockedWords: Array.from({ length: 20 }, (_, i) => `casino${i}`),
    blockedDomains: Array.from({ length: 20 }, (_, i) => `spam${i}.example`),
    maxLinks: 3,
    disposableEmails: true,
    threshold: 3,
  },
  shadow: false,
} as const;

const P1S_ORIGIN = 'https://site.example';

/** POSTs one submission without `Origin` until ingest flags it: the form's spam settings are in force there. */
async function untilSpamSettingsApply(target: FormgateTarget, form: BenchForm): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${target.server.url}/f/${form.key}`, {
      method: 'POST',
      headers: { 'content-type': PAYLOADS.urlencoded.contentType, accept: 'application/json' },
      body: PAYLOADS.urlencoded.body,
    });
    const { id } = (await res.json()) as { id?: string };
    if (id) {
      for (let j = 0; j < 50; j++) {
        const s = await target.api
          .get<{ spamReasons: { rule: string }[] }>(`/api/v1/forms/${form.id}/submissions/${id}`)
          .catch(() => null);
        if (s) {
          if (s.spamReasons.some((r) => r.rule === 'origin-missing')) return;
          break;
        }
        await sleep(100);
      }
    }
    await sleep(100);
  }
  throw new Error('P1s: the form’s spam settings never reached ingest');
}

/**
 * P1o, P1s's denominator: P1s's very request (the stamp field, the allowed `Origin`) to a form with no spam layer, so
 * that P1s / P1o is the cost of the layers alone — issue 14's "within 10 % of P1 without them" — and not that of the
 * 40 more bytes and the header every browser sends. Measured just before P1s, in the same conditions.
 */
async function measureWithoutLayers(ctx: RoundContext, label: string, payload: Payload): Promise<IngestRun> {
  const form = await freshForm(ctx.formgate, label);
  const probes = await ctx.formgate.api.count(form.id);
  await quiet(ctx, label);
  return loadForm(ctx, ctx.formgate, label, form, payload, { probes, origin: P1S_ORIGIN });
}

async function measureSpamLayers(
  ctx: RoundContext,
  round: number,
): Promise<{ P1o: IngestRun; P1s: IngestRun & { flagged: number } }> {
  const label = `P1s round ${round}`;
  const target = ctx.formgate;
  const form = await target.api.createForm(label);
  await target.api.call('PATCH', `/api/v1/forms/${form.id}`, {
    settings: { allowedOrigins: [P1S_ORIGIN], spam: P1S_SPAM_SETTINGS },
  });
  await target.api.waitUntilIngestKnows(form.key);
  await untilSpamSettingsApply(target, form);
  const probes = await target.api.count(form.id);
  const stampUrl = `${target.server.url}/f/${form.key}/timestamp`;
  const stamp = (await (await fetch(stampUrl)).json()) as { field: string; value: string };
  const payload = spamPayload(stamp);
  prepareWrk(ctx.workDir, [payload]);
  const P1o = await measureWithoutLayers(ctx, `P1o round ${round}`, payload);
  await quiet(ctx, label);
  await sleep(1_100); // past the time-trap
  const run = await loadForm(ctx, target, label, form, payload, { probes, origin: P1S_ORIGIN });
  // The probes were flagged (no Origin); the load passed every layer, so none of it may be spam.
  const { spamCount } = await target.api.get<{ spamCount: number }>(`/api/v1/forms/${form.id}`);
  if (spamCount > probes) ctx.problems.push(`${label}: ${spamCount - probes} of ${run.stored} flagged as spam`);
  return { P1o, P1s: { ...run, flagged: spamCount - probes } };
}

/** Warm-up: every server, every payload, for `warmupSeconds` each; results are thrown away. */
export async function warmUp(ctx: RoundContext): Promise<void> {
  const s = ctx.settings.warmupSeconds;
  ctx.log(`warm-up (${s}s per target)`);
  await wrk(ctx, ctx.b0.url, PAYLOADS.urlencoded, s);
  await wrk(ctx, ctx.b1.url, PAYLOADS.urlencoded, s);
  const form = await freshForm(ctx.formgate, 'Bench warm-up');
  for (const [, payload] of INGEST_MEASUREMENTS) await wrk(ctx, `${ctx.formgate.server.url}/f/${form.key}`, payload, s);
  if (ctx.distributed) {
    const p2Form = await freshForm(ctx.distributed, 'Bench warm-up');
    await wrk(ctx, `${ctx.distributed.server.url}/f/${p2Form.key}`, PAYLOADS.urlencoded, s);
  }
}

const fmtRun = (r: WrkResult) =>
  `${Math.round(r.rps)} rps, p99 ${r.p99Ms.toFixed(1)} ms${errorCount(r) ? `, ERRORS ${JSON.stringify(r.errors)}` : ''}`;

/** One interleaved round: B0, B1, P1, P1j, P1m, (P2), P7, each measured once. */
export async function runRound(ctx: RoundContext, round: number): Promise<RoundResult> {
  const result: RoundResult = { round, runs: {}, P7: null };
  for (const [name, server] of [
    ['B0', ctx.b0],
    ['B1', ctx.b1],
  ] as const) {
    await quiet(ctx, `${name} round ${round}`);
    const r = await wrk(ctx, server.url, PAYLOADS.urlencoded, ctx.settings.seconds);
    checkErrors(ctx, `${name} round ${round}`, r);
    result.runs[name] = r;
    ctx.log(`round ${round} ${name}: ${fmtRun(r)}`);
  }
  for (const [name, payload] of INGEST_MEASUREMENTS) {
    const r = await measureIngest(ctx, ctx.formgate, `${name} round ${round}`, payload);
    result.runs[name] = r;
    ctx.log(
      `round ${round} ${name}: ${fmtRun(r)}, stored ${r.stored}, projection lag ${r.projectionLagMs?.toFixed(0)} ms`,
    );
  }
  Object.assign(result.runs, await spamLayerRuns(ctx, round));
  if (ctx.distributed) Object.assign(result.runs, await distributedRuns(ctx, ctx.distributed, round));
  result.P7 = await measureBurst(ctx, round);
  return result;
}

/**
 * P2 through the gateway, then (P3) the same load straight at the ingest process, skipping the gateway; and how many
 * gateway → ingest connections P2 left in TIME_WAIT (a proxy without keep-alive leaves one per request).
 *
 * P2 and P2i time the path the goal names, gateway → ingest → Kafka (acks=all), with the consumers of the submission
 * events stopped while wrk runs (ADR 79): on these two cores they would otherwise take half the machine from it,
 * FerretDB's per-document cost above all, where a deployment runs them on their own. They are continued when wrk ends
 * and must then catch up: every acknowledged submission is still waited for in the dashboard. P2w is the same load
 * with them running, the whole deployment on one machine, reported beside it.
 */
async function distributedRuns(ctx: RoundContext, target: FormgateTarget, round: number) {
  const consumers = target.consumerPids ?? [];
  const P2: IngestRun = await measureIngest(ctx, target, `P2 round ${round}`, PAYLOADS.urlencoded, consumers);
  const ingestUrl = target.ingestUrl;
  if (ingestUrl) P2.timeWait = timeWaitTo(Number(new URL(ingestUrl).port));
  ctx.log(
    `round ${round} P2: ${fmtRun(P2)}, stored ${P2.stored}, catch-up ${P2.projectionLagMs?.toFixed(0)} ms, ` +
      `TIME_WAIT to ingest ${P2.timeWait ?? '?'}`,
  );
  const P2w = await measureIngest(ctx, target, `P2w round ${round}`, PAYLOADS.urlencoded);
  ctx.log(
    `round ${round} P2w (consumers running): ${fmtRun(P2w)}, projection lag ${P2w.projectionLagMs?.toFixed(0)} ms`,
  );
  if (!ingestUrl) return { P2, P2w };
  const direct = { ...target, server: { ...target.server, url: ingestUrl }, metricsUrls: undefined };
  const P2i = await measureIngest(ctx, direct, `P2i round ${round}`, PAYLOADS.urlencoded, consumers);
  ctx.log(`round ${round} P2i (ingest direct): ${fmtRun(P2i)}, stored ${P2i.stored}`);
  return { P2, P2w, P2i };
}

/** Sockets in TIME_WAIT whose remote or local port is `port` (`ss`, iproute2). */
function timeWaitTo(port: number): number {
  const out = execFileSync('ss', ['-Htan', 'state', 'time-wait', `( dport = :${port} or sport = :${port} )`]);
  return out
    .toString()
    .split('\n')
    .filter((l) => l.trim() !== '').length;
}

/** P1o then P1s (`measureSpamLayers`), each logged. */
async function spamLayerRuns(ctx: RoundContext, round: number) {
  const { P1o, P1s } = await measureSpamLayers(ctx, round);
  ctx.log(`round ${round} P1o: ${fmtRun(P1o)}, stored ${P1o.stored}`);
  ctx.log(`round ${round} P1s: ${fmtRun(P1s)}, stored ${P1s.stored}, spam-flagged ${P1s.flagged}`);
  return { P1o, P1s };
}

/** `pnpm bench P1s`: a round of P1o and P1s alone. */
export async function runSpamRound(ctx: RoundContext, round: number): Promise<RoundResult> {
  const runs = await spamLayerRuns(ctx, round);
  ctx.log(`round ${round} P1s/P1o: ${(runs.P1s.rps / runs.P1o.rps).toFixed(3)}`);
  return { round, runs, P7: null };
}

async function measureBurst(ctx: RoundContext, round: number): Promise<BurstResult> {
  const { formgate } = ctx;
  const form = await freshForm(formgate, `P7 round ${round}`);
  await quiet(ctx, `P7 round ${round}`);
  const b = await runBurst({
    url: formgate.server.url,
    token: formgate.api.token,
    api: formgate.api,
    form,
    payload: PAYLOADS.urlencoded,
    amount: ctx.settings.burstAmount,
    connections: ctx.settings.burstConnections,
  });
  const label = `P7 round ${round}`;
  if (b.acknowledged !== ctx.settings.burstAmount || b.socketErrors > 0) {
    ctx.warnings.push(
      `${label}: ${b.acknowledged} of ${ctx.settings.burstAmount} acknowledged, statuses ${JSON.stringify(b.statuses)}, ${b.socketErrors} socket errors`,
    );
  }
  if (b.missingIds > 0) ctx.problems.push(`${label}: ${b.missingIds} acknowledged submissions LOST`);
  if (b.dashboardCount < b.acknowledged) {
    ctx.problems.push(`${label}: dashboard count ${b.dashboardCount} < ${b.acknowledged} acknowledged`);
  }
  ctx.log(
    `round ${round} P7: ${Math.round(b.burstRps)} rps, ${b.acknowledged}/${b.sent} acknowledged, ` +
      `count ${b.dashboardCount}, missing ${b.missingIds}, count lag ${b.countLagMs?.toFixed(0)} ms`,
  );
  return b;
}
