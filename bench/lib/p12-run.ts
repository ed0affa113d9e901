import { measureP12, type P12Round, type P12Settings, type P12Setup, type P12Target, setUpP12 } from './p12.ts';
import { type P12Result, p12Label } from './p12-goals.ts';
import { waitForIdle } from './quiesce.ts';
import type { SmtpSink } from './smtp-sink.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

/** A running deployment for P12 in one mode, and the processes to wait for before each measurement. */
export interface P12Deployment {
  target: P12Target;
  stop(): Promise<void>;
}

export interface P12Mode {
  mode: P12Result['mode'];
  /** Starts the mode's deployment with its mail going to the sink; null when the mode is unavailable. */
  start: ((sink: SmtpSink) => Promise<P12Deployment>) | null;
  unavailable?: { reason: string; fails: boolean };
}

/** Integrity problems of one round (each fails the mode's P12 rows), and warnings about the measurement. */
function check(label: string, round: number, r: P12Round, problems: string[], warnings: string[]) {
  const where = `${label} round ${round}`;
  const failed = Object.entries(r.failures);
  if (failed.length) {
    problems.push(`${where}: ${failed.map(([s, n]) => `${n} × ${s}`).join(', ')} of ${r.offered} submissions`);
  }
  if (r.lost) problems.push(`${where}: ${r.lost} of ${r.expected} emails never reached the SMTP sink`);
  if (r.pending) {
    warnings.push(
      `${where}: ${r.pending} of ${r.expected} emails were still pending when the bench stopped waiting ` +
        '(not counted lost; p50/p99 are lower bounds)',
    );
  }
  if (r.duplicates) problems.push(`${where}: ${r.duplicates} emails arrived twice`);
  if (r.hooks.lost)
    problems.push(`${where}: ${r.hooks.lost} of ${r.hooks.expected} webhooks never reached the receiver`);
  if (r.hooks.duplicates) problems.push(`${where}: ${r.hooks.duplicates} webhooks arrived twice`);
  if (r.hooks.unexpected) problems.push(`${where}: ${r.hooks.unexpected} webhooks for no acknowledged submission`);
  if (r.hooks.pending) {
    warnings.push(
      `${where}: ${r.hooks.pending} of ${r.hooks.expected} webhooks were still pending when the bench stopped waiting`,
    );
  }
  if (r.unexpected) problems.push(`${where}: ${r.unexpected} emails for no acknowledged submission or recipient`);
  if (r.sendLagMs > 100) {
    warnings.push(`${where}: the load generator sent up to ${Math.round(r.sendLagMs)} ms behind its schedule`);
  }
}

/**
 * P12 in every mode: start each deployment with the SMTP sink, set it up as a user would, then `rounds` rounds,
 * each measuring every mode in turn once its processes are idle. Every deployment is stopped at the end.
 */
export async function runP12(opts: {
  modes: P12Mode[];
  sink: SmtpSink;
  hooks: WebhookReceiver;
  settings: P12Settings;
  rounds: number;
  problems: string[];
  warnings: string[];
  log: (line: string) => void;
}): Promise<P12Result[]> {
  const results = new Map<P12Mode['mode'], P12Result>();
  const ready: { mode: P12Mode['mode']; deployment: P12Deployment; setup: P12Setup; rounds: P12Round[] }[] = [];
  try {
    for (const m of opts.modes) {
      if (!m.start) {
        const why = m.unavailable ?? { reason: 'not started', fails: false };
        results.set(m.mode, { mode: m.mode, skipped: why.reason, fails: why.fails });
        continue;
      }
      let deployment: P12Deployment | null = null;
      try {
        deployment = await m.start(opts.sink);
        const setup = await setUpP12(deployment.target, opts.sink, opts.hooks, m.mode);
        opts.log(
          `P12 ${m.mode}: set up in ${(setup.setupMs / 1000).toFixed(1)} s (addresses verified, form notifying, webhook endpoint)`,
        );
        ready.push({ mode: m.mode, deployment, setup, rounds: [] });
      } catch (err) {
        await deployment?.stop();
        const reason = `did not start: ${(err as Error).message.split('\n').slice(0, 4).join(' ')}`;
        opts.log(`P12 ${m.mode} ${reason}`);
        results.set(m.mode, { mode: m.mode, skipped: reason, fails: true });
      }
    }
    for (let round = 1; round <= opts.rounds; round++) {
      for (const s of ready) {
        await waitForIdle(s.deployment.target.pids);
        const r = await measureP12(s.deployment.target, s.setup, opts.sink, opts.hooks, opts.settings);
        check(p12Label(s.mode), round, r, opts.problems, opts.warnings);
        s.rounds.push(r);
        opts.log(
          `round ${round} P12 ${s.mode}: ${r.acknowledged}/${r.offered} acknowledged, ${r.received}/${r.expected} ` +
            `emails (${r.pending} pending at the cutoff, ${r.lost} lost), ${r.censored ? 'at least ' : ''}2xx → SMTP p50 ${r.p50Ms.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms, max ${r.maxMs.toFixed(0)} ms, ` +
            `last email ${(r.drainMs / 1000).toFixed(1)} s after the last 2xx, CPU ${r.cores?.toFixed(2) ?? '?'} cores; ` +
            `webhooks ${r.hooks.received}/${r.hooks.expected} (${r.hooks.pending} pending, ${r.hooks.lost} lost), ` +
            `2xx → first attempt p50 ${r.hooks.p50Ms.toFixed(0)} ms, p99 ${r.hooks.p99Ms.toFixed(0)} ms, max ${r.hooks.maxMs.toFixed(0)} ms`,
        );
      }
    }
  } finally {
    for (const s of ready) await s.deployment.stop();
  }
  for (const s of ready) results.set(s.mode, { mode: s.mode, setupMs: s.setup.setupMs, rounds: s.rounds });
  return opts.modes.map((m) => results.get(m.mode)).filter((r): r is P12Result => r !== undefined);
}
