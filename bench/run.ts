// `pnpm bench [--quick] [--rounds N] [--seconds S] [--sync FULL|NORMAL] [--no-p2]`: see bench/README.md.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stopAllBackends } from './lib/backends.ts';
import { type DistributedStart, startDistributedFormgate } from './lib/distributed.ts';
import { absolutes, evaluate } from './lib/evaluate.ts';
import { PAYLOADS } from './lib/payloads.ts';
import { stopAllServers } from './lib/processes.ts';
import { describeMachine, loadAverage, passed, writeReport } from './lib/report.ts';
import { type BenchSettings, type RoundContext, type RoundResult, runRound, warmUp } from './lib/rounds.ts';
import { startBaseline, startEmbeddedFormgate } from './lib/targets.ts';
import { ensureWrk, prepareWrk } from './lib/wrk.ts';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const startedAt = Date.now();
const log = (line: string) =>
  process.stdout.write(`[bench +${((Date.now() - startedAt) / 1000).toFixed(0).padStart(3)}s] ${line}\n`);

function readOptions() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      sync: { type: 'string', default: 'FULL' },
      'no-p2': { type: 'boolean', default: false },
      'keep-data': { type: 'boolean', default: false },
    },
  });
  if (values.sync !== 'FULL' && values.sync !== 'NORMAL') throw new Error('--sync must be FULL or NORMAL');
  const settings: BenchSettings = {
    rounds: Number(values.rounds ?? (values.quick ? 1 : 3)),
    seconds: Number(values.seconds ?? (values.quick ? 3 : 10)),
    warmupSeconds: values.quick ? 1 : 3,
    connections: 50,
    burstAmount: 10_000,
    burstConnections: 200,
  };
  for (const [k, v] of Object.entries({ rounds: settings.rounds, seconds: settings.seconds })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`--${k} must be a positive integer`);
  }
  return {
    settings,
    quick: values.quick,
    synchronous: values.sync as 'FULL' | 'NORMAL',
    p2: !values['no-p2'],
    keepData: values['keep-data'],
  };
}

function p2Unavailable(d: DistributedStart) {
  if ('skipped' in d) return { reason: d.skipped, fails: false };
  if ('failed' in d) return { reason: d.failed, fails: true };
  return null;
}

async function main(): Promise<boolean> {
  const options = readOptions();
  const wrkVersion = ensureWrk();
  const workDir = mkdtempSync(join(tmpdir(), 'formgate-bench-'));
  const logDir = join(workDir, 'logs');
  mkdirSync(logDir);
  log(`work dir ${workDir} (server logs in logs/)`);
  const machine = describeMachine(wrkVersion);
  let distributed: DistributedStart = { skipped: 'disabled with --no-p2' };
  let finished = false;
  try {
    const b0 = await startBaseline('B0', logDir);
    const b1 = await startBaseline('B1', logDir);
    const formgate = await startEmbeddedFormgate({
      dataDir: join(workDir, 'embedded-data'),
      logDir,
      synchronous: options.synchronous,
    });
    if (options.p2) distributed = await startDistributedFormgate({ workDir, logDir });
    if ('skipped' in distributed) log(`P2 skipped: ${distributed.skipped}`);
    if ('failed' in distributed) log(`P2 FAILED to start: ${distributed.failed}`);
    log(`B0 pid ${b0.pid}, B1 pid ${b1.pid}, Formgate embedded pid ${formgate.server.pid}`);
    const ctx: RoundContext = {
      settings: options.settings,
      workDir,
      script: prepareWrk(workDir, Object.values(PAYLOADS)),
      b0,
      b1,
      formgate,
      distributed: 'target' in distributed ? distributed.target : null,
      problems: [],
      warnings: [],
      log,
      pids: [b0.pid, b1.pid, formgate.server.pid, ...('target' in distributed ? distributed.pids : [])],
    };
    await warmUp(ctx);
    const rounds: RoundResult[] = [];
    for (let i = 1; i <= options.settings.rounds; i++) rounds.push(await runRound(ctx, i));
    machine.loadAverageAtEnd = loadAverage();
    if ((machine.loadAverageAtStart[0] ?? 0) > machine.cpus / 2) {
      ctx.warnings.push(
        `1-minute load average ${machine.loadAverageAtStart[0]} at start: other work shared the machine`,
      );
    }
    const report = {
      machine,
      settings: {
        mode: options.quick ? 'quick' : 'full',
        ...options.settings,
        sqliteSynchronous: options.synchronous,
        loadGenerator: 'wrk -t1 (throughput), autocannon in a child process (P7)',
      },
      goals: evaluate(rounds, ctx.problems, p2Unavailable(distributed)),
      absolute: absolutes(rounds),
      problems: ctx.problems,
      warnings: ctx.warnings,
      rounds,
    };
    const md = writeReport(BENCH_DIR, report);
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

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void stopAllServers()
      .then(stopAllBackends)
      .finally(() => process.exit(130));
  });
}

try {
  process.exitCode = (await main()) ? 0 : 1;
} catch (err) {
  console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 2;
}
