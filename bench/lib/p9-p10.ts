import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { SubmissionRecord } from '@formgate/forms';
import type { BenchForm } from './formgate-api.ts';
import { type GoalResult, judge, median, skipped } from './goals.ts';
import { REPO_ROOT } from './processes.ts';
import { rssKb, waitForIdle } from './quiesce.ts';
import type { FormgateTarget } from './targets.ts';

/**
 * P9 (search) and P10 (streamed CSV export), each mode: a form of N submissions with varied values, seeded through
 * the store's batch write path like P8. Search words: `hello` is in every submission, `tag7` in 1 %, `user<k>`
 * in exactly one.
 */
export interface QuerySettings {
  submissions: number;
  /** Requests per kind and round for P9. */
  samples: number;
}

export interface QueryMode {
  mode: 'embedded' | 'distributed';
  target: FormgateTarget | null;
  /** The deployment's processes: their RSS, summed, is what P10 watches. */
  pids: number[];
  unavailable?: { reason: string; fails: boolean };
}

interface QuerySeed {
  form: BenchForm;
  /** An empty form of the same organization that the ingest probe posts to while the export runs. */
  probe: BenchForm;
  seedMs: number;
  /** The index of the one submission `rare` finds. */
  rareIndex: number;
}

export interface QueryRound {
  firstP95Ms: number;
  /** p95 of each search: every submission matches, 1 % match, one matches. */
  commonP95Ms: number;
  tagP95Ms: number;
  rareP95Ms: number;
  exportRowsPerSec: number;
  curRowsPerSec: number;
  rssGrowthMb: number;
  /** p99 of paced single submissions while the export runs / the same probe on an idle deployment. */
  ingestP99Ratio: number;
  /** The two p99s of that ratio and how many answers each had, ms (the log line shows them). */
  ingestP99Ms: { busy: number; idle: number; busyAnswers: number; idleAnswers: number };
}

export type QueryResult =
  | { mode: QueryMode['mode']; submissions: number; seedMs: number; rounds: QueryRound[] }
  | { mode: QueryMode['mode']; skipped: string; fails: boolean };

const BATCH = 5_000;
const COLORS = ['red', 'green', 'blue', 'amber', 'violet', 'teal', 'coral', 'olive'];

function record(formId: string, orgId: string, i: number): SubmissionRecord {
  return {
    id: randomUUID(),
    formId,
    orgId,
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 100).toISOString(),
    fields: [
      { name: 'name', value: `Person ${i}` },
      { name: 'email', value: `user${i}@example.com` },
      { name: 'message', value: `Hello, I like ${COLORS[i % COLORS.length]} things. tag${i % 100}` },
    ],
    files: [],
    spam: { isSpam: i % 50 === 0, reasons: [] },
    held: false,
  };
}

async function seed(target: FormgateTarget, n: number): Promise<QuerySeed> {
  const { store, close } = await target.openFormsStore();
  try {
    const started = performance.now();
    const form = await target.api.createForm('P9 P10');
    for (let i = 0; i < n; i += BATCH) {
      await store.insertSubmissions(
        Array.from({ length: Math.min(BATCH, n - i) }, (_, j) => record(form.id, target.api.orgId, i + j)),
      );
    }
    const probe = await target.api.createForm('P10 ingest probe');
    await target.api.waitUntilIngestKnows(probe.key);
    return { form, probe, seedMs: performance.now() - started, rareIndex: Math.floor(n * 0.37) };
  } finally {
    await close();
  }
}

/** p95 of the samples; NaN when any failed (a failed request has no latency to rank). */
function p95(xs: number[]): number {
  if (xs.some((x) => Number.isNaN(x))) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? Number.NaN;
}

async function timed<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const value = await f();
  return [performance.now() - t0, value];
}

type Page = { data: { id: string; fields: { value: string }[] }[]; nextCursor: string | null };

async function measureP9(target: FormgateTarget, s: QuerySeed, samples: number, check: Check) {
  const base = `/api/v1/forms/${s.form.id}/submissions?limit=100`;
  const t = { first: [] as number[], common: [] as number[], tag: [] as number[], rare: [] as number[] };
  /** One timed request; a failure (e.g. a 504 past the gateway's deadline) is a problem and an NaN sample. */
  const sample = async (into: number[], path: string, ok: (p: Page) => boolean, what: string) => {
    try {
      const [ms, page] = await timed(() => target.api.get<Page>(path));
      check(ok(page), `P9: ${what} is wrong`);
      into.push(ms);
    } catch (err) {
      check(false, `P9: ${what} failed: ${(err as Error).message.slice(0, 160)}`);
      into.push(Number.NaN);
    }
  };
  for (let i = 0; i < samples; i++) {
    await sample(t.first, base, (p) => p.data.length === 100, 'the first page');
    await sample(t.common, `${base}&q=hello`, (p) => p.data.length === 100 && p.nextCursor !== null, 'q=hello');
    await sample(
      t.tag,
      `${base}&q=TAG7`,
      (p) => p.data.length === 100 && p.data.every((r) => r.fields[2]?.value.endsWith(' tag7')),
      'q=tag7',
    );
    await sample(
      t.rare,
      `${base}&q=user${s.rareIndex}`,
      (p) => p.data.length === 1 && p.nextCursor === null,
      'q=user<k>',
    );
  }
  return { firstP95Ms: p95(t.first), commonP95Ms: p95(t.common), tagP95Ms: p95(t.tag), rareP95Ms: p95(t.rare) };
}

/** One JSON submission after another to `/f/{key}`, 20 ms apart, until stopped: their latencies in ms. */
/**
 * Paced single submissions to `key` from a process of their own (`ingest-probe-client.ts`) until `stop()`, which
 * answers their latencies (NaN for an answer that was not 2xx).
 */
function ingestProbe(baseUrl: string, key: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bench/lib/ingest-probe-client.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, BENCH_PROBE_URL: `${baseUrl}/f/${key}` },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number[]>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(PROBE_PREFIX));
      if (code !== 0 || !line) reject(new Error(`ingest probe exited with ${code}:\n${err || out}`));
      else resolve((JSON.parse(line.slice(PROBE_PREFIX.length)) as (number | null)[]).map((x) => x ?? Number.NaN));
    });
  });
  // The first answer is not counted (the process's own start-up is not the server's latency).
  const ready = new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (!out.includes('PROBEREADY')) return;
      child.stdout.off('data', onData);
      resolve();
    };
    child.stdout.on('data', onData);
    exited.catch(reject);
  });
  return {
    ready,
    stop: () => {
      child.stdin.end();
      return exited;
    },
  };
}

const PROBE_PREFIX = 'PROBEJSON ';

function p99(xs: number[]): number {
  if (xs.length === 0 || xs.some(Number.isNaN)) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] as number;
}

/**
 * Exports (and cursor reads) per round, each side's median kept: one export of the form can take a fraction of a
 * second, short enough for a single wake-up of another process on the machine to halve its rate. Repeats stop once
 * `REPEAT_MS` went by (a FerretDB export takes seconds: one is enough there).
 */
const EXPORTS_PER_ROUND = 3;
const REPEAT_MS = 2_000;

/** `measure` run up to `EXPORTS_PER_ROUND` times, while less than `REPEAT_MS` went by. */
async function repeated<T>(measure: () => Promise<T>): Promise<T[]> {
  const started = performance.now();
  const results: T[] = [];
  while (results.length < EXPORTS_PER_ROUND && (results.length === 0 || performance.now() - started < REPEAT_MS)) {
    results.push(await measure());
  }
  return results;
}

/** The median of at least one measure. */
const middle = (xs: number[]) => median(xs) as number;

/**
 * P10's export measures: exports back to back (`repeated`), their median rate and the worst RSS growth; and
 * ingest p99 while they run against the same probe on the idle deployment for as long. The probe writes to its own
 * form, so the exported one does not change.
 */
async function measureExportUnderIngest(target: FormgateTarget, s: QuerySeed, pids: number[], n: number, check: Check) {
  const during = ingestProbe(target.server.url, s.probe.key);
  await during.ready;
  const started = performance.now();
  let exports: Awaited<ReturnType<typeof measureExport>>[];
  try {
    exports = await repeated(() => measureExport(target, s, pids, n, check));
  } finally {
    await during.stop();
  }
  const busy = await during.stop();
  const ms = performance.now() - started;
  await waitForIdle(pids);
  const idle = ingestProbe(target.server.url, s.probe.key);
  await idle.ready;
  await new Promise((r) => setTimeout(r, Math.max(2_000, ms)));
  const quiet = await idle.stop();
  check(!busy.some(Number.isNaN) && !quiet.some(Number.isNaN), 'P10: an ingest probe submission failed');
  return {
    exportRowsPerSec: middle(exports.map((e) => e.exportRowsPerSec)),
    rssGrowthMb: Math.max(...exports.map((e) => e.rssGrowthMb)),
    ingestP99Ratio: p99(busy) / p99(quiet),
    ingestP99Ms: { busy: p99(busy), idle: p99(quiet), busyAnswers: busy.length, idleAnswers: quiet.length },
  };
}

/** The CSV export through the gateway, read as fast as the client can, with the deployment's RSS sampled. */
async function measureExport(target: FormgateTarget, s: QuerySeed, pids: number[], n: number, check: Check) {
  const total = () => pids.reduce((sum, pid) => sum + (rssKb(pid) ?? 0), 0);
  const before = total();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, total());
  }, 50);
  const started = performance.now();
  let lines = 0;
  try {
    const res = await fetch(`${target.server.url}/api/v1/forms/${s.form.id}/submissions/export?format=csv`, {
      headers: { authorization: `Bearer ${target.api.token}` },
    });
    check(res.status === 200 && res.body !== null, `P10: export answered ${res.status}`);
    // Line ends are found by `Buffer.indexOf` (memchr), not a loop over each byte: the client shares the machine's
    // two cores with the export it times, so its own work is kept to what a client saving the file would do.
    for await (const chunk of res.body ?? []) {
      const bytes = chunk as Uint8Array;
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      for (let i = buffer.indexOf(10); i !== -1; i = buffer.indexOf(10, i + 1)) lines++;
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  peak = Math.max(peak, total());
  check(lines === n + 1, `P10: the export has ${lines - 1} rows, not ${n}`);
  return { exportRowsPerSec: n / seconds, rssGrowthMb: (peak - before) / 1024 };
}

/**
 * CUR: the same rows read with a raw cursor on the same database from the bench process, no formatting; the median
 * of its reads (`repeated`).
 */
async function measureCursor(target: FormgateTarget, s: QuerySeed, n: number, check: Check) {
  const rates = await repeated(async () => {
    const started = performance.now();
    const rows = await target.countRawRows(s.form.id);
    check(rows === n, `P10: the raw cursor read ${rows} rows, not ${n}`);
    return n / ((performance.now() - started) / 1000);
  });
  return middle(rates);
}

type Check = (ok: boolean, what: string) => void;

/** P9 and P10 in every mode: seed each once, then `rounds` rounds measuring every mode in turn once idle. */
export async function runQueryGoals(opts: {
  modes: QueryMode[];
  settings: QuerySettings;
  rounds: number;
  problems: string[];
  pids: number[];
  log: (line: string) => void;
}): Promise<QueryResult[]> {
  const n = opts.settings.submissions;
  const seeded: { m: QueryMode; target: FormgateTarget; seed: QuerySeed; rounds: QueryRound[] }[] = [];
  const results: QueryResult[] = [];
  for (const m of opts.modes) {
    if (!m.target) continue;
    const s = await seed(m.target, n);
    opts.log(`P9/P10 ${m.mode}: seeded ${n} submissions in ${(s.seedMs / 1000).toFixed(1)} s`);
    if (m.target.settle) opts.log(`P9/P10 ${m.mode}: ${await m.target.settle()}`);
    // Warm-up, as for the throughput goals: one export and one cursor read, not measured (a round's single export
    // would otherwise time the JIT compiling its formatter, not the formatter).
    const ignore: Check = () => {};
    await measureExport(m.target, s, m.pids, n, ignore).catch(() => undefined);
    await measureCursor(m.target, s, n, ignore).catch(() => undefined);
    seeded.push({ m, target: m.target, seed: s, rounds: [] });
  }
  for (let round = 1; round <= opts.rounds; round++) {
    for (const x of seeded) {
      const check: Check = (ok, what) => {
        const problem = `${what.startsWith('P10') ? 'P10' : 'P9'} ${x.m.mode}: ${what}`;
        if (!ok && !opts.problems.includes(problem)) opts.problems.push(problem);
      };
      await waitForIdle(opts.pids);
      const p9 = await measureP9(x.target, x.seed, opts.settings.samples, check);
      await waitForIdle(opts.pids);
      const failed = (what: string) => (err: unknown) => {
        check(false, `P10: ${what} failed: ${(err as Error).message.slice(0, 160)}`);
        return Number.NaN;
      };
      const exported = await measureExportUnderIngest(x.target, x.seed, x.m.pids, n, check).catch((err) => {
        const nan = failed('the export')(err);
        return {
          exportRowsPerSec: nan,
          rssGrowthMb: nan,
          ingestP99Ratio: nan,
          ingestP99Ms: { busy: nan, idle: nan, busyAnswers: 0, idleAnswers: 0 },
        };
      });
      await waitForIdle(opts.pids);
      const curRowsPerSec = await measureCursor(x.target, x.seed, n, check).catch(failed('the raw cursor'));
      const r = { ...p9, ...exported, curRowsPerSec };
      x.rounds.push(r);
      opts.log(
        `round ${round} P9 ${x.m.mode}: p95 first ${r.firstP95Ms.toFixed(1)} ms, q=hello ${r.commonP95Ms.toFixed(1)} ms, ` +
          `q=tag7 ${r.tagP95Ms.toFixed(1)} ms, q=user<k> ${r.rareP95Ms.toFixed(1)} ms; P10: export ` +
          `${Math.round(r.exportRowsPerSec)} rows/s, CUR ${Math.round(r.curRowsPerSec)} rows/s, ` +
          `RSS +${r.rssGrowthMb.toFixed(1)} MB, ingest p99 ×${r.ingestP99Ratio.toFixed(2)} during the export ` +
          `(${r.ingestP99Ms.busy.toFixed(1)} ms of ${r.ingestP99Ms.busyAnswers} answers, idle ` +
          `${r.ingestP99Ms.idle.toFixed(1)} ms of ${r.ingestP99Ms.idleAnswers})`,
      );
    }
  }
  for (const m of opts.modes) {
    const x = seeded.find((s) => s.m === m);
    if (x) results.push({ mode: m.mode, submissions: n, seedMs: x.seed.seedMs, rounds: x.rounds });
    else {
      const why = m.unavailable ?? { reason: 'not started', fails: false };
      results.push({ mode: m.mode, skipped: why.reason, fails: why.fails });
    }
  }
  return results;
}

const worstSearch = (r: QueryRound) => Math.max(r.commonP95Ms, r.tagP95Ms, r.rareP95Ms);

/** The P9 and P10 rows of the goals table for one mode. */
export function queryGoals(result: QueryResult, problems: string[]): GoalResult[] {
  const mode = result.mode === 'embedded' ? '(embedded)' : '(distributed)';
  if ('skipped' in result) {
    const why = [result.skipped, result.fails] as const;
    return [
      skipped(`P9 ${mode}`, 'search p95 / first page p95', { op: '<=', value: 20 }, { op: '<=', value: 100 }, ...why),
      skipped(`P10 ${mode}`, 'export rows/s / CUR rows/s', { op: '>=', value: 0.5 }, { op: '>=', value: 0.35 }, ...why),
      skipped(`P10 ${mode}`, 'RSS growth while exporting', { op: '<=', value: 64 }, { op: '<=', value: 256 }, ...why),
      skipped(`P10 ${mode}`, 'ingest p99 during export / idle', { op: '<=', value: 2 }, null, ...why),
    ];
  }
  const invalid = (goal: 'P9' | 'P10') =>
    problems.some((p) => p.startsWith(`${goal} ${result.mode}`)) ? 'invalid: see Problems' : undefined;
  const n = result.submissions.toLocaleString('en-US');
  const rows = (goal: string, spec: Omit<Parameters<typeof judge>[0], 'goal'>) => {
    const bad = invalid(goal.startsWith('P10') ? 'P10' : 'P9');
    return judge({ goal, ...spec, ...(bad ? { invalid: bad } : {}) });
  };
  const values = (f: (r: QueryRound) => number) => result.rounds.map(f);
  return [
    rows(`P9 ${mode}`, {
      measure: `slowest search p95 / first page p95 (q matching all, 1 %, one of ${n})`,
      values: values((r) => worstSearch(r) / r.firstP95Ms),
      target: { op: '<=', value: 20 },
      floor: { op: '<=', value: 100 },
    }),
    rows(`P9 ${mode}`, {
      measure: 'slowest search p95 through the gateway',
      unit: 'ms',
      values: values(worstSearch),
      target: { op: '<=', value: 200 },
      floor: null,
    }),
    rows(`P9 ${mode}`, {
      measure: 'q=hello (all match) p95',
      unit: 'ms',
      values: values((r) => r.commonP95Ms),
      target: null,
      floor: null,
    }),
    rows(`P9 ${mode}`, {
      measure: 'q=tag7 (1 %) p95',
      unit: 'ms',
      values: values((r) => r.tagP95Ms),
      target: null,
      floor: null,
    }),
    rows(`P9 ${mode}`, {
      measure: 'q=user<k> (one) p95',
      unit: 'ms',
      values: values((r) => r.rareP95Ms),
      target: null,
      floor: null,
    }),
    rows(`P10 ${mode}`, {
      measure: `CSV export rows/s / CUR rows/s (${n} rows)`,
      values: values((r) => r.exportRowsPerSec / r.curRowsPerSec),
      target: { op: '>=', value: 0.5 },
      floor: { op: '>=', value: 0.35 },
    }),
    rows(`P10 ${mode}`, {
      measure: 'CSV export rows/s (×1000)',
      unit: 'count',
      values: values((r) => r.exportRowsPerSec / 1000),
      target: { op: '>=', value: 100 },
      floor: null,
    }),
    rows(`P10 ${mode}`, {
      measure: 'RSS growth of the deployment while exporting, MB',
      unit: 'count',
      values: values((r) => r.rssGrowthMb),
      judged: 'worst',
      target: { op: '<=', value: 64 },
      floor: { op: '<=', value: 256 },
    }),
    rows(`P10 ${mode}`, {
      measure: 'ingest p99 while exporting / idle (paced single submissions to another form)',
      values: values((r) => r.ingestP99Ratio),
      target: { op: '<=', value: 2 },
      floor: null,
    }),
  ];
}
