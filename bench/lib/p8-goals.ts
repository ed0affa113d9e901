import { type GoalResult, judge, skipped } from './goals.ts';
import type { P8Round } from './p8.ts';

/** P8 in one mode: its rounds, or why it was not measured (`fails`: that counts as a failed floor). */
export type P8Result =
  | { mode: 'embedded' | 'distributed'; submissions: number; seedMs: number; rounds: P8Round[] }
  | { mode: 'embedded' | 'distributed'; skipped: string; fails: boolean };

export const p8Label = (mode: P8Result['mode']) => `P8 ${mode}`;

const RATIOS = [
  { measure: 'deep page p95 / first page p95 (cursor at 90 % depth)', floor: 5, of: (r: P8Round) => r.deepP95Ms },
  { measure: 'count p95 / first page p95 (GET /api/v1/forms/:id)', floor: 20, of: (r: P8Round) => r.countP95Ms },
];

/** The P8 rows of the goals table for one mode: the two ratios (judged), then the absolute p95s. */
export function p8Goals(result: P8Result, problems: string[]): GoalResult[] {
  const goal = `P8 ${result.mode === 'embedded' ? '(embedded)' : '(distributed)'}`;
  if ('skipped' in result) {
    return RATIOS.map((r) =>
      skipped(goal, r.measure, { op: '<=', value: 2 }, { op: '<=', value: r.floor }, result.skipped, result.fails),
    );
  }
  const label = p8Label(result.mode);
  const invalid = problems.some((p) => p.startsWith(label)) ? 'invalid: see Problems' : undefined;
  const n = result.submissions.toLocaleString('en-US');
  const ms = (measure: string, of: (r: P8Round) => number, target: number | null) =>
    judge({
      goal,
      measure: `${measure}, ${n} submissions`,
      unit: 'ms',
      values: result.rounds.map(of),
      target: target === null ? null : { op: '<=', value: target },
      floor: null,
      ...(invalid ? { invalid } : {}),
    });
  return [
    ...RATIOS.map((r) =>
      judge({
        goal,
        measure: r.measure,
        values: result.rounds.map((x) => r.of(x) / x.firstP95Ms),
        target: { op: '<=', value: 2 },
        floor: { op: '<=', value: r.floor },
        ...(invalid ? { invalid } : {}),
      }),
    ),
    ms('first page p95 through the gateway', (r) => r.firstP95Ms, 50),
    ms('deep page p95', (r) => r.deepP95Ms, null),
    ms('count p95', (r) => r.countP95Ms, null),
  ];
}
