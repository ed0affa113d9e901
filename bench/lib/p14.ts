import { parsePrometheusText, samplesOf, sumOf } from '@formgate/kit/testing';
import type { StartNotifications } from './distributed.ts';
import { measureP12, type P12Round, type P12Setup, type P12Target, setUpP12 } from './p12.ts';
import { type ServerProcess, sleep } from './processes.ts';
import { waitForIdle } from './quiesce.ts';
import type { SmtpSink } from './smtp-sink.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

/**
 * P14: the database commands the whole distributed deployment issues per accepted submission, from ingest through
 * the notification mails and the webhook. Every distributed process counts the commands it sends with the MongoDB
 * driver's command monitoring (`formgate_mongo_commands_total{db, command}`, docs/metrics.md); the bench scrapes
 * every process's `/metrics` before a steady open-loop load (P12's: a form mailing 2 verified addresses and
 * sending a Standard Webhook) and again once everything was delivered and the counters stopped moving, and divides
 * the sum of the differences by the submissions answered 2xx.
 */
export interface P14Settings {
  /** The goal's rates (submissions/s): 100 and 1,000. */
  rates: readonly number[];
  seconds: number;
  /** How long the deployment's commands are counted at idle, before the load (s). */
  idleSeconds: number;
}

/** Commands counted, by `process\0db\0command`. */
export type CommandCounts = Map<string, number>;

export const commandKey = (process: string, db: string, command: string) => `${process}\u0000${db}\u0000${command}`;
export const splitKey = (key: string) => key.split('\u0000') as [string, string, string];

/**
 * Every process's `formgate_mongo_commands_total` series, and (P6) the Kafka produce requests the ingest processes
 * sent (`formgate_bus_append_records_count{log="kafka"}`), from one read of each `/metrics`. A process that does not
 * answer fails the measurement.
 */
async function scrape(processes: ServerProcess[]): Promise<{ commands: CommandCounts; produceRequests: number }> {
  const commands: CommandCounts = new Map();
  let produceRequests = 0;
  await Promise.all(
    processes.map(async (p) => {
      if (!p.metricsUrl) throw new Error(`P14: ${p.name} serves no /metrics`);
      const res = await fetch(p.metricsUrl);
      if (res.status !== 200) throw new Error(`P14: ${p.name} /metrics answered ${res.status}`);
      const samples = parsePrometheusText(await res.text());
      for (const s of samplesOf(samples, 'formgate_mongo_commands_total')) {
        const key = commandKey(p.name, s.labels.db ?? '', s.labels.command ?? '');
        commands.set(key, (commands.get(key) ?? 0) + s.value);
      }
      if (p.name.endsWith('-ingest')) {
        produceRequests += sumOf(samples, 'formgate_bus_append_records_count', { log: 'kafka' });
      }
    }),
  );
  return { commands, produceRequests };
}

const sum = (counts: CommandCounts) => [...counts.values()].reduce((a, b) => a + b, 0);

function minus(after: CommandCounts, before: CommandCounts): CommandCounts {
  const d: CommandCounts = new Map();
  for (const [k, v] of after) {
    const x = v - (before.get(k) ?? 0);
    if (x > 0) d.set(k, x);
  }
  return d;
}

export interface P14Idle {
  seconds: number;
  /** Commands of the deployment at idle, by key. */
  commands: CommandCounts;
}

/** One load at one rate: what was offered and answered, what was delivered, and the commands it cost. */
export interface P14Run {
  rate: number;
  seconds: number;
  acknowledged: number;
  /** Every command of the deployment from the "before" scrape to the "after" one. */
  commands: CommandCounts;
  total: number;
  perSubmission: number;
  /** P6: Kafka produce requests ingest sent per acknowledged submission (its batching at this rate). */
  produceRequestsPerSubmission: number;
  /** From the first request until the last 2xx and the last mail and webhook arrived (ms). */
  pipelineMs: number;
  /** Acknowledged submissions over `pipelineMs`: the rate the deployment carried through to delivery. */
  deliveredRate: number;
  /** The deployment kept up: everything delivered within the slack after the last 2xx, no failed request. */
  sustained: boolean;
  /** From the last delivery (or the end of P12's wait) until the counters stopped moving (ms). */
  settleMs: number;
  /** From the "before" to the "after" scrape (ms): idle background commands are counted over this window too. */
  windowMs: number;
  delivery: Pick<P12Round, 'offered' | 'failures' | 'sendLagMs' | 'lost' | 'pending' | 'duplicates' | 'unexpected'> & {
    expected: number;
    received: number;
    hooksExpected: number;
    hooksReceived: number;
    hooksLost: number;
    hooksPending: number;
    hooksDuplicates: number;
  };
}

/**
 * Waits until the deployment's commands stop moving: two 1 s windows in a row in which they grew by no more than
 * twice the idle rate (plus 2), at most `capMs`. Returns how long it waited (ms).
 */
async function settle(processes: ServerProcess[], idlePerSecond: number, capMs = 60_000): Promise<number> {
  const started = performance.now();
  await waitForIdle(
    processes.map((p) => p.pid),
    { timeoutMs: capMs },
  );
  let last = sum((await scrape(processes)).commands);
  let quiet = 0;
  while (quiet < 2 && performance.now() - started < capMs) {
    await sleep(1_000);
    const now = sum((await scrape(processes)).commands);
    quiet = now - last <= 2 * idlePerSecond + 2 ? quiet + 1 : 0;
    last = now;
  }
  return performance.now() - started;
}

/** How long after the last 2xx every mail and webhook may take (a rate tried and not sustained leaves a backlog). */
const DRAIN_CAP_MS = 300_000;

/** The longest a goal rate is tried before it is known to be sustained (its backlog is waited for). */
const PROBE_SECONDS = 10;

/** The slack after the last 2xx within which every delivery must have arrived for a rate to count as sustained. */
const slackMs = (seconds: number) => Math.max(5_000, seconds * 200);

async function measureAt(ctx: P14Context, rate: number, seconds: number): Promise<P14Run> {
  await waitForIdle(ctx.processes.map((p) => p.pid));
  const before = await scrape(ctx.processes);
  const start = performance.now();
  const r = await measureP12(ctx.target, ctx.setup, ctx.sink, ctx.hooks, {
    rate,
    seconds,
    quietMs: 30_000,
    drainCapMs: DRAIN_CAP_MS,
  });
  const settleMs = await settle(ctx.processes, ctx.idlePerSecond);
  const after = await scrape(ctx.processes);
  const produced = after.produceRequests - before.produceRequests;
  const windowMs = performance.now() - start;
  const commands = minus(after.commands, before.commands);
  const total = sum(commands);
  const pipelineMs = r.lastOkMs + Math.max(0, r.drainMs, r.hooks.drainMs);
  const failed = Object.values(r.failures).reduce((a, b) => a + b, 0);
  const missing = r.lost + r.pending + r.hooks.lost + r.hooks.pending;
  return {
    rate,
    seconds,
    acknowledged: r.acknowledged,
    commands,
    total,
    perSubmission: r.acknowledged > 0 ? total / r.acknowledged : Number.NaN,
    produceRequestsPerSubmission: r.acknowledged > 0 ? produced / r.acknowledged : Number.NaN,
    pipelineMs,
    deliveredRate: r.acknowledged / (pipelineMs / 1000),
    sustained: failed === 0 && missing === 0 && pipelineMs <= seconds * 1000 + slackMs(seconds),
    settleMs,
    windowMs,
    delivery: {
      offered: r.offered,
      failures: r.failures,
      sendLagMs: r.sendLagMs,
      lost: r.lost,
      pending: r.pending,
      duplicates: r.duplicates,
      unexpected: r.unexpected,
      expected: r.expected,
      received: r.received,
      hooksExpected: r.hooks.expected,
      hooksReceived: r.hooks.received,
      hooksLost: r.hooks.lost,
      hooksPending: r.hooks.pending,
      hooksDuplicates: r.hooks.duplicates + r.hooks.unexpected,
    },
  };
}

interface P14Context {
  target: P12Target;
  setup: P12Setup;
  sink: SmtpSink;
  hooks: WebhookReceiver;
  /** Every process of the deployment, each serving `/metrics`. */
  processes: ServerProcess[];
  idlePerSecond: number;
}

/** One goal rate's measurements: the rate it was measured at (lower when the goal's could not be sustained). */
export interface P14Level {
  goalRate: number;
  /** The rate every round was measured at. */
  rate: number;
  /** The goal's rate, tried first and not sustained (its figures are not judged). */
  probe?: P14Run;
  rounds: P14Run[];
}

export type P14Result = { idle: P14Idle; levels: P14Level[]; setupMs: number } | { skipped: string; fails: boolean };

/** A rate a little below what the deployment carried, rounded down to tens (at least 10/s). */
const sustainableRate = (run: P14Run) => Math.max(10, Math.floor((run.deliveredRate * 0.9) / 10) * 10);

const fmtRun = (r: P14Run) =>
  `${r.acknowledged}/${r.delivery.offered} acknowledged at ${r.rate}/s, ${r.total} commands = ` +
  `${r.perSubmission.toFixed(3)} per submission; mails ${r.delivery.received}/${r.delivery.expected}, webhooks ` +
  `${r.delivery.hooksReceived}/${r.delivery.hooksExpected}, everything delivered ${(r.pipelineMs / 1000).toFixed(1)} s ` +
  `after the first request (${Math.round(r.deliveredRate)}/s carried${r.sustained ? '' : ': NOT sustained'}), ` +
  `counters settled ${(r.settleMs / 1000).toFixed(1)} s later`;

/**
 * P14: starts the notifications process and a gateway for it (`startNotifications`), sets a form up as P12 does,
 * counts the deployment's commands at idle, then `rounds` rounds, each loading every goal rate in turn. The first
 * round tries each goal rate; one the deployment does not sustain (deliveries fall behind) is measured, in every
 * round, at a rate a little below what it carried, and the row says so.
 */
export async function runP14(opts: {
  startNotifications: StartNotifications;
  /** The deployment's processes started before P14 (each serving `/metrics`). */
  processes: ServerProcess[];
  sink: SmtpSink;
  hooks: WebhookReceiver;
  settings: P14Settings;
  rounds: number;
  problems: string[];
  warnings: string[];
  log: (line: string) => void;
}): Promise<P14Result> {
  const extra = await opts.startNotifications(opts.sink.url, 'p14');
  try {
    const target: P12Target = { url: extra.target.server.url, api: extra.target.api, pids: [] };
    const processes = [...opts.processes, ...extra.processes];
    target.pids = processes.map((p) => p.pid);
    const setup = await setUpP12(target, opts.sink, opts.hooks, 'p14');
    opts.log(`P14: set up in ${(setup.setupMs / 1000).toFixed(1)} s (P12's form, 2 addresses and a webhook)`);

    await waitForIdle(target.pids);
    const idleBefore = (await scrape(processes)).commands;
    await sleep(opts.settings.idleSeconds * 1000);
    const idle = {
      seconds: opts.settings.idleSeconds,
      commands: minus((await scrape(processes)).commands, idleBefore),
    };
    const idlePerSecond = sum(idle.commands) / idle.seconds;
    opts.log(`P14: at idle the deployment sends ${idlePerSecond.toFixed(1)} Mongo commands/s`);
    const ctx: P14Context = { target, setup, sink: opts.sink, hooks: opts.hooks, processes, idlePerSecond };

    const levels: P14Level[] = opts.settings.rates.map((goalRate) => ({ goalRate, rate: goalRate, rounds: [] }));
    for (let round = 1; round <= opts.rounds; round++) {
      for (const level of levels) {
        let run: P14Run | null = null;
        if (round === 1 && level.goalRate > Math.min(...opts.settings.rates)) {
          // A short try first: a rate the deployment does not carry leaves a backlog that takes minutes to drain.
          const probe = await measureAt(ctx, level.goalRate, Math.min(PROBE_SECONDS, opts.settings.seconds));
          opts.log(`P14 try of ${level.goalRate}/s: ${fmtRun(probe)}`);
          if (!probe.sustained) {
            level.probe = probe;
            level.rate = Math.min(level.goalRate, sustainableRate(probe));
            const why = `${level.goalRate}/s is not sustained here (${Math.round(probe.deliveredRate)}/s carried)`;
            opts.warnings.push(`P14: ${why}; measured at ${level.rate}/s instead`);
            opts.log(`P14: ${why}; measuring it at ${level.rate}/s instead`);
          } else if (probe.seconds === opts.settings.seconds) {
            run = probe;
          }
        }
        run ??= await measureAt(ctx, level.rate, opts.settings.seconds);
        const at = level.rate === level.goalRate ? '' : ` (measured at ${level.rate}/s)`;
        opts.log(`round ${round} P14 at ${level.goalRate}/s${at}: ${fmtRun(run)}`);
        check(`P14 at ${level.goalRate}/s round ${round}`, run, opts.problems, opts.warnings);
        level.rounds.push(run);
      }
    }
    return { idle, levels, setupMs: setup.setupMs };
  } finally {
    await extra.stop();
  }
}

/** A measurement whose deliveries are not all in counts too few commands: each of these fails its row. */
function check(where: string, r: P14Run, problems: string[], warnings: string[]) {
  const d = r.delivery;
  const failed = Object.entries(d.failures);
  if (failed.length) problems.push(`${where}: ${failed.map(([s, n]) => `${n} × ${s}`).join(', ')} of ${d.offered}`);
  if (d.lost || d.hooksLost) problems.push(`${where}: ${d.lost} mails and ${d.hooksLost} webhooks never arrived`);
  if (d.pending || d.hooksPending) {
    problems.push(
      `${where}: ${d.pending} mails and ${d.hooksPending} webhooks still pending ${DRAIN_CAP_MS / 1000} s after the last 2xx ` +
        '(their commands are not all counted)',
    );
  }
  if (d.duplicates || d.unexpected || d.hooksDuplicates) {
    problems.push(
      `${where}: ${d.duplicates + d.unexpected} mails and ${d.hooksDuplicates} webhooks twice or unexpected`,
    );
  }
  if (!r.sustained) {
    warnings.push(
      `${where}: not sustained (everything delivered ${(r.pipelineMs / 1000).toFixed(1)} s after the first request ` +
        `of a ${r.seconds} s load, ${Math.round(r.deliveredRate)}/s carried)`,
    );
  }
}
