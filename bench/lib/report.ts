import { writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { type Bound, type GoalResult, median } from './goals.ts';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  os: string;
  loadAverageAtStart: number[];
  /** When the run ended (includes the bench's own load). */
  loadAverageAtEnd?: number[];
  date: string;
  wrk: string;
}

export const loadAverage = () => loadavg().map((l) => Math.round(l * 100) / 100);

export function describeMachine(wrk: string): Machine {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${process.platform} ${release()}`,
    loadAverageAtStart: loadAverage(),
    date: new Date().toISOString(),
    wrk,
  };
}

export interface AbsoluteRow {
  label: string;
  /** Requests per second, one per round. */
  rps: number[];
}

export interface BenchReport {
  machine: Machine;
  settings: Record<string, string | number | boolean>;
  goals: GoalResult[];
  absolute: AbsoluteRow[];
  /** Integrity problems: non-2xx/3xx answers, socket errors, stored < acknowledged. Each one fails the bench. */
  problems: string[];
  /** Worth a look, not a failure. */
  warnings: string[];
  /** Figures that explain a goal's rows (P14's top commands…): a heading and its markdown lines each. */
  context: { title: string; lines: string[] }[];
  rounds: unknown[];
}

const fmt = (v: number | null, unit: GoalResult['unit']) => {
  if (v === null) return '—';
  if (unit === 'ratio') return v.toFixed(3);
  if (unit === 'us') return `${v.toFixed(1)} µs`;
  if (unit === 'MB') return `${v.toFixed(2)} MB`;
  return unit === 'ms' ? `${Math.round(v)} ms` : String(Math.round(v));
};
const bound = (b: Bound | null, unit: GoalResult['unit']) => (b ? `${b.op} ${fmt(b.value, unit)}` : '—');

function verdict(g: GoalResult): string {
  if (g.passesFloor === null) return g.note?.startsWith('skipped') ? 'skipped' : g.meetsTarget ? 'target met' : '—';
  if (!g.passesFloor) return '**FAIL**';
  return g.meetsTarget ? 'pass (target met)' : 'pass (below target)';
}

function markdown(r: BenchReport): string {
  const m = r.machine;
  const lines = [
    '# Formgate bench results',
    '',
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}, ${m.wrk}, ` +
      `load ${m.loadAverageAtStart.join(' ')} at start${
        m.loadAverageAtEnd ? `, ${m.loadAverageAtEnd.join(' ')} at end` : ''
      }, ${m.date}.`,
    '',
    `Settings: ${Object.entries(r.settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}.`,
    '',
    '| goal | measure | median | min–max | target | floor | vs floor |',
    '|---|---|---|---|---|---|---|',
    ...r.goals.map(
      (g) =>
        `| ${g.goal} | ${g.measure}${g.note ? ` (${g.note})` : ''} | ${fmt(g.median, g.unit)}${
          g.judged === 'worst' ? ' (judged: worst round)' : ''
        } | ${fmt(g.min, g.unit)}–${fmt(g.max, g.unit)} | ${bound(g.target, g.unit)} | ${bound(g.floor, g.unit)} | ${verdict(g)} |`,
    ),
    '',
    '## Absolute throughput (context only: these move with the machine)',
    '',
    '| target | rps per round | median rps |',
    '|---|---|---|',
    ...r.absolute.map(
      (a) => `| ${a.label} | ${a.rps.map((x) => Math.round(x)).join(', ')} | ${Math.round(median(a.rps) ?? 0)} |`,
    ),
    '',
    ...r.context.flatMap((c) => [`## ${c.title}`, '', ...c.lines, '']),
    '## Problems',
    '',
    ...(r.problems.length ? r.problems.map((p) => `- ${p}`) : ['None: every answer was 2xx/3xx, nothing was lost.']),
    ...(r.warnings.length ? ['', '## Warnings', '', ...r.warnings.map((w) => `- ${w}`)] : []),
    '',
  ];
  return lines.join('\n');
}

/** Writes `results.json` and `results.md` into `dir`; returns the markdown. */
export function writeReport(dir: string, report: BenchReport): string {
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  const md = markdown(report);
  writeFileSync(join(dir, 'results.md'), md);
  return md;
}

/** True when every judged floor holds and no integrity problem was seen. */
export function passed(report: BenchReport): boolean {
  return report.problems.length === 0 && report.goals.every((g) => g.passesFloor !== false);
}
