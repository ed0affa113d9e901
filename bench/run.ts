// `pnpm bench [P1] [P1s] [P8] [P9] [P11] [P12] [P14] [--quick] [--rounds N] [--seconds S] [--sync FULL|NORMAL] [--no-p2]
// [--p8-submissions N] …`: see bench/README.md.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stopAllBackends } from './lib/backends.ts';
import { type DistributedStart, startDistributedFormgate } from './lib/distributed.ts';
import { absolutes, evaluate } from './lib/evaluate.ts';
import type { P8Settings } from './lib/p8.ts';
import { p8Goals } from './lib/p8-goals.ts';
import { type P8Mode, runP8 } from './lib/p8-run.ts';
import { queryGoals, runQueryGoals } from './lib/p9-p10.ts';
import { fitConnections, type P11Entry, type P11Settings, runP11 } from './lib/p11.ts';
import { p11Goals } from './lib/p11-goals.ts';
import type { P12Settings } from './lib/p12.ts';
import { p12Goals } from './lib/p12-goals.ts';
import { type P12Mode, runP12 } from './lib/p12-run.ts';
import { type P14Result, type P14Settings, runP14 } from './lib/p14.ts';
import { p14Context, p14Goals, p14Json } from './lib/p14-goals.ts';
import { PAYLOADS } from './lib/payloads.ts';
import { freePort, type ServerProcess, startServer, stopAllServers } from './lib/processes.ts';
import { describeMachine, loadAverage, passed, writeReport } from './lib/report.ts';
import {
  type BenchSettings,
  type RoundContext,
  type RoundResult,
  runRound,
  runSpamRound,
  warmUp,
} from './lib/rounds.ts';
import { benchOnProductionNode, parseBenchNode, productionNode } from './lib/runtime.ts';
import { startSmtpSink } from './lib/smtp-sink.ts';
import { B0_SCRIPT, type FormgateTarget, startBaseline, startEmbeddedFormgate } from './lib/targets.ts';
import { startWebhookReceiver } from './lib/webhook-receiver.ts';
import { ensureWrk, prepareWrk } from './lib/wrk.ts';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const startedAt = Date.now();
const log = (line: string) =>
  process.stdout.write(`[bench +${((Date.now() - startedAt) / 1000).toFixed(0).padStart(3)}s] ${line}\n`);

function readOptions() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      sync: { type: 'string', default: 'FULL' },
      'no-p2': { type: 'boolean', default: false },
      'keep-data': { type: 'boolean', default: false },
      'p8-submissions': { type: 'string' },
      'p9-submissions': { type: 'string' },
      'p12-seconds': { type: 'string' },
      'p12-rate': { type: 'string' },
      'p11-connections': { type: 'string' },
      'p14-seconds': { type: 'string' },
      node: { type: 'string' },
    },
  });
  const alone = ['P1', 'P1s', 'P8', 'P9', 'P10', 'P11', 'P12', 'P14'];
  if (positionals.some((p) => !alone.includes(p))) {
    throw new Error('only P1, P1s, P8, P9, P10, P11, P12 and P14 can be run alone');
  }
  if (values.sync !== 'FULL' && values.sync !== 'NORMAL') throw new Error('--sync must be FULL or NORMAL');
  const settings: BenchSettings = {
    rounds: Number(values.rounds ?? (values.quick ? 1 : 3)),
    seconds: Number(values.seconds ?? (values.quick ? 3 : 10)),
    warmupSeconds: values.quick ? 1 : 3,
    connections: 50,
    burstAmount: 10_000,
    burstConnections: 200,
  };
  const p8: P8Settings = {
    submissions: Number(values['p8-submissions'] ?? process.env.BENCH_P8_SUBMISSIONS ?? 100_000),
    otherForms: 3,
    samples: values.quick ? 10 : 20,
  };
  const query = {
    submissions: Number(values['p9-submissions'] ?? process.env.BENCH_P9_SUBMISSIONS ?? p8.submissions),
    samples: values.quick ? 10 : 20,
  };
  const p12: P12Settings = {
    rate: Number(values['p12-rate'] ?? 100),
    seconds: Number(values['p12-seconds'] ?? (values.quick ? 10 : 60)),
    quietMs: 30_000,
    drainCapMs: 60_000,
  };
  const p11: P11Settings = {
    connections: Number(values['p11-connections'] ?? 4_000),
    rounds: settings.rounds,
  };
  const p14: P14Settings = {
    rates: [100, 1_000],
    seconds: Number(values['p14-seconds'] ?? (values.quick ? 10 : 30)),
    idleSeconds: values.quick ? 5 : 10,
  };
  const positive = {
    rounds: settings.rounds,
    seconds: settings.seconds,
    'p8-submissions': p8.submissions,
    'p9-submissions': query.submissions,
    'p12-seconds': p12.seconds,
    'p12-rate': p12.rate,
    'p11-connections': p11.connections,
    'p14-seconds': p14.seconds,
  };
  for (const [k, v] of Object.entries(positive)) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`--${k} must be a positive integer`);
  }
  return {
    settings,
    node: parseBenchNode(values.node),
    quick: values.quick,
    synchronous: values.sync as 'FULL' | 'NORMAL',
    p2: !values['no-p2'],
    keepData: values['keep-data'],
    p8,
    query,
    p12,
    p11,
    p14,
    /** `pnpm bench P8 P9`: only those (no other throughput rounds); P9 and P10 run together. */
    only: positionals.length > 0,
    /** `pnpm bench P1s`: rounds of P1o and P1s alone (the spam layers' cost, issue 14), without B0, P1–P7. */
    runP1s: positionals.includes('P1s'),
    /** `pnpm bench P1`: the throughput rounds alone (B0, B1, P1–P7, and P2/P2i unless `--no-p2`). */
    runP1: positionals.includes('P1'),
    /** wrk and throughput rounds: every round with no goal named or `P1`, P1o and P1s alone with `P1s`. */
    runThroughput: positionals.length === 0 || positionals.includes('P1') || positionals.includes('P1s'),
    runP8: positionals.length === 0 || positionals.includes('P8'),
    runQuery: positionals.length === 0 || positionals.includes('P9') || positionals.includes('P10'),
    runP12: positionals.length === 0 || positionals.includes('P12'),
    runP11: positionals.length === 0 || positionals.includes('P11'),
    runP14: positionals.length === 0 || positionals.includes('P14'),
  };
}

function p2Unavailable(d: DistributedStart) {
  if ('skipped' in d) return { reason: d.skipped, fails: false };
  if ('failed' in d) return { reason: d.failed, fails: true };
  return null;
}

type Options = ReturnType<typeof readOptions>;

/**
 * B0, B1, the warm-up and the interleaved throughput rounds (P1–P7); none with `pnpm bench P8` (or P9, P10), only
 * P1o and P1s with `pnpm bench P1s`.
 */
async function throughputRounds(options: Options, base: Omit<RoundContext, 'b0' | 'b1' | 'script'>) {
  if (!options.runThroughput) return [];
  const b0 = await startBaseline('B0', join(base.workDir, 'logs'));
  const b1 = await startBaseline('B1', join(base.workDir, 'logs'));
  const script = prepareWrk(base.workDir, Object.values(PAYLOADS));
  const ctx: RoundContext = { ...base, b0, b1, script, pids: [b0.pid, b1.pid, ...base.pids] };
  log(`B0 pid ${b0.pid}, B1 pid ${b1.pid}, Formgate embedded pid ${base.formgate.server.pid}`);
  await warmUp(ctx);
  const rounds: RoundResult[] = [];
  for (let i = 1; i <= options.settings.rounds; i++) {
    rounds.push(await (options.runP1s ? runSpamRound(ctx, i) : runRound(ctx, i)));
  }
  return rounds;
}

function p8Modes(formgate: FormgateTarget, distributed: DistributedStart): P8Mode[] {
  const unavailable = p2Unavailable(distributed);
  return [
    { mode: 'embedded', target: formgate },
    {
      mode: 'distributed',
      target: 'target' in distributed ? distributed.target : null,
      ...(unavailable ? { unavailable } : {}),
    },
  ];
}

/**
 * P12's two deployments, started by P12 itself with their mail going to its SMTP sink: a second embedded Formgate
 * (its own data directory), and on the distributed deployment a notifications process behind a second gateway.
 */
function p12Modes(options: Options, workDir: string, distributed: DistributedStart): P12Mode[] {
  const logDir = join(workDir, 'logs');
  const unavailable = p2Unavailable(distributed);
  return [
    {
      mode: 'embedded',
      start: async (sink) => {
        const target = await startEmbeddedFormgate({
          dataDir: join(workDir, 'p12-embedded-data'),
          logDir,
          synchronous: options.synchronous,
          name: 'p12-embedded',
          smtp: { url: sink.url, links: (to, subject) => sink.waitForLink(to, subject) },
        });
        return {
          target: { url: target.server.url, api: target.api, pids: [target.server.pid] },
          stop: target.server.stop,
        };
      },
    },
    {
      mode: 'distributed',
      start:
        'startNotifications' in distributed
          ? async (sink) => {
              const extra = await distributed.startNotifications(sink.url);
              return {
                target: {
                  url: extra.target.server.url,
                  api: extra.target.api,
                  pids: [...distributed.pids, ...extra.pids],
                },
                stop: extra.stop,
              };
            }
          : null,
      ...(unavailable ? { unavailable } : {}),
    },
  ];
}

/**
 * P11's servers: a B0 of its own (stopped after P11), the embedded host's public port, and in distributed mode the
 * ingest process directly and the gateway; each posts to a fresh form of its deployment.
 */
function p11Entries(
  logDir: string,
  formgate: FormgateTarget,
  distributed: DistributedStart,
  stopLater: ServerProcess[],
): P11Entry[] {
  const unavailable = p2Unavailable(distributed);
  const ready = async (target: FormgateTarget, name: string) => {
    const form = await target.api.createForm(name);
    await target.api.waitUntilIngestKnows(form.key);
    return `/f/${form.key}`;
  };
  const d = 'target' in distributed ? distributed : null;
  const distributedEntry = (server: 'ingest' | 'gateway'): P11Entry =>
    d
      ? {
          server,
          target: async () => {
            const measured = server === 'ingest' ? d.ingest : d.target.server;
            return {
              label: server,
              port: measured.port,
              pid: measured.pid,
              path: await ready(d.target, `P11 ${server}`),
            };
          },
        }
      : { server, unavailable: unavailable ?? { reason: 'not started', fails: false } };
  return [
    {
      server: 'B0',
      target: async () => {
        const b0 = await startServer({
          name: 'p11-B0',
          script: B0_SCRIPT,
          port: await freePort(),
          env: { NODE_ENV: 'production' },
          logDir,
        });
        stopLater.push(b0);
        return { label: 'B0', port: b0.port, pid: b0.pid, path: '/f/b0' };
      },
    },
    {
      server: 'embedded',
      target: async () => ({
        label: 'embedded',
        port: formgate.server.port,
        pid: formgate.server.pid,
        path: await ready(formgate, 'P11 embedded'),
      }),
    },
    distributedEntry('ingest'),
    distributedEntry('gateway'),
  ];
}

/** P14 on the distributed deployment, with its own SMTP sink and webhook receiver; skipped without the deployment. */
async function p14Run(
  options: Options,
  distributed: DistributedStart,
  report: { problems: string[]; warnings: string[] },
): Promise<P14Result> {
  if (!('startNotifications' in distributed)) {
    const why = p2Unavailable(distributed) ?? { reason: 'not started', fails: false };
    return { skipped: why.reason, fails: why.fails };
  }
  const sink = await startSmtpSink();
  const hooks = await startWebhookReceiver();
  try {
    return await runP14({
      startNotifications: distributed.startNotifications,
      processes: distributed.processes,
      sink,
      hooks,
      settings: options.p14,
      rounds: options.settings.rounds,
      ...report,
      log,
    });
  } catch (err) {
    const reason = `did not run: ${(err as Error).message.split('\n').slice(0, 4).join(' ')}`;
    log(`P14 ${reason}`);
    return { skipped: reason, fails: true };
  } finally {
    await sink.stop();
    await hooks.stop();
  }
}

async function main(options: ReturnType<typeof readOptions>): Promise<boolean> {
  const wrkVersion = options.runThroughput ? ensureWrk() : 'wrk not used (P8–P12 only)';
  const workDir = mkdtempSync(join(tmpdir(), 'formgate-bench-'));
  const logDir = join(workDir, 'logs');
  mkdirSync(logDir);
  log(`work dir ${workDir} (server logs in logs/)`);
  const machine = describeMachine(wrkVersion);
  let distributed: DistributedStart = { skipped: 'disabled with --no-p2' };
  let finished = false;
  try {
    const formgate = await startEmbeddedFormgate({
      dataDir: join(workDir, 'embedded-data'),
      logDir,
      synchronous: options.synchronous,
    });
    if (options.p2) distributed = await startDistributedFormgate({ workDir, logDir });
    if ('skipped' in distributed) log(`distributed mode skipped: ${distributed.skipped}`);
    if ('failed' in distributed) log(`distributed mode FAILED to start: ${distributed.failed}`);
    const target = 'target' in distributed ? distributed : null;
    const problems: string[] = [];
    const warnings: string[] = [];
    const pids = [formgate.server.pid, ...(target?.pids ?? [])];
    const base = { settings: options.settings, workDir, formgate, distributed: target?.target ?? null, pids };
    const rounds = await throughputRounds(options, { ...base, problems, warnings, log });
    const p11Servers: ServerProcess[] = [];
    const fitted = fitConnections(options.p11.connections, options.p11.rounds);
    if (options.runP11 && fitted.lowered) {
      warnings.push(fitted.lowered);
      log(fitted.lowered);
    }
    const p11 = options.runP11
      ? await runP11({
          entries: p11Entries(logDir, formgate, distributed, p11Servers),
          settings: { ...options.p11, connections: fitted.connections },
          problems,
          pids,
          log,
        }).finally(() => Promise.allSettled(p11Servers.map((p) => p.stop())))
      : [];
    const p8Settings = { settings: options.p8, rounds: options.settings.rounds, problems, pids, log };
    const p8 = options.runP8 ? await runP8({ modes: p8Modes(formgate, distributed), ...p8Settings }) : [];
    const queryModes = p8Modes(formgate, distributed).map((m) => ({
      ...m,
      pids: m.mode === 'embedded' ? [formgate.server.pid] : (target?.pids ?? []),
    }));
    const query = options.runQuery
      ? await runQueryGoals({ ...p8Settings, modes: queryModes, settings: options.query })
      : [];
    let p12: Awaited<ReturnType<typeof runP12>> = [];
    if (options.runP12) {
      const sink = await startSmtpSink();
      const hooks = await startWebhookReceiver();
      try {
        const modes = p12Modes(options, workDir, distributed);
        p12 = await runP12({
          modes,
          sink,
          hooks,
          settings: options.p12,
          rounds: options.settings.rounds,
          problems,
          warnings,
          log,
        });
      } finally {
        await sink.stop();
        await hooks.stop();
      }
    }
    const p14 = options.runP14 ? await p14Run(options, distributed, { problems, warnings }) : null;
    machine.loadAverageAtEnd = loadAverage();
    if ((machine.loadAverageAtStart[0] ?? 0) > machine.cpus / 2) {
      warnings.push(`1-minute load average ${machine.loadAverageAtStart[0]} at start: other work shared the machine`);
    }
    const report = {
      machine,
      settings: {
        mode: options.quick ? 'quick' : 'full',
        goals: options.only
          ? [
              options.runP1 ? 'P1–P7' : '',
              options.runP1s ? 'P1s' : '',
              options.runP8 ? 'P8' : '',
              options.runQuery ? 'P9 P10' : '',
              options.runP11 ? 'P11' : '',
              options.runP12 ? 'P12' : '',
              options.runP14 ? 'P14' : '',
            ]
              .join(' ')
              .replace(/\s+/g, ' ')
              .trim()
          : 'all',
        ...options.settings,
        sqliteSynchronous: options.synchronous,
        p8Submissions: options.p8.submissions,
        p9Submissions: options.query.submissions,
        p12Rate: options.p12.rate,
        p12Seconds: options.p12.seconds,
        p11Connections: options.p11.connections,
        p14Seconds: options.p14.seconds,
        loadGenerator:
          'wrk -t1 (throughput), autocannon in a child process (P7), fetch (P8–P10, P12 and P14 open loop), net sockets (P11)',
      },
      goals: [
        // With goals named, the throughput goals only when their rounds ran (`pnpm bench P12` alone judged an empty
        // P1s as failed and exited 1): all of them with `P1`, P1s alone with `P1s`.
        ...evaluate(rounds, problems, p2Unavailable(distributed)).filter(
          (g) => !options.only || (options.runP1 && g.goal !== 'P1s') || (options.runP1s && g.goal === 'P1s'),
        ),
        ...p8.flatMap((r) => p8Goals(r, problems)),
        ...query.flatMap((r) => queryGoals(r, problems)),
        ...p11Goals(p11, problems),
        ...p12.flatMap((r) => p12Goals(r, options.p12, problems)),
        ...(p14 ? p14Goals(p14, options.p14, problems) : []),
      ],
      absolute: absolutes(rounds),
      context: p14 ? p14Context(p14) : [],
      problems,
      warnings,
      rounds: [...rounds, { P8: p8 }, { P9P10: query }, { P11: p11 }, { P12: p12 }, { P14: p14Json(p14) }],
    };
    const md = writeReport(process.env.BENCH_RESULTS_DIR ?? BENCH_DIR, report);
    process.stdout.write(`\n${md}\n`);
    const ok = passed(report);
    log(ok ? 'all floors hold' : 'FAILED: a floor does not hold or an integrity problem was seen (see above)');
    finished = true;
    return ok;
  } finally {
    if ('stop' in distributed) await distributed.stop();
    await stopAllServers();
    await stopAllBackends();
    if (finished && !options.keepData) rmSync(workDir, { recursive: true, force: true });
    else log(`kept ${workDir} (data and server logs)`);
  }
}

/** The exit code: the bench here, or again on the production image's Node (`--node`, ADR 83). */
async function run(): Promise<number> {
  const options = readOptions();
  if (options.node === 'production') {
    const node = productionNode();
    if (process.version !== node.version) return benchOnProductionNode(node, process.argv.slice(2), log);
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      void stopAllServers()
        .then(stopAllBackends)
        .finally(() => process.exit(130));
    });
  }
  return (await main(options)) ? 0 : 1;
}

try {
  process.exitCode = await run();
} catch (err) {
  console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 2;
}
