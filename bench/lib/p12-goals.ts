import { type GoalResult, judge, skipped } from './goals.ts';
import type { P12Round, P12Settings } from './p12.ts';

/** P12 in one mode: its rounds, or why it was not measured (`fails`: that counts as a failed floor). */
export type P12Result =
  | { mode: 'embedded' | 'distributed'; setupMs: number; rounds: P12Round[] }
  | { mode: 'embedded' | 'distributed'; skipped: string; fails: boolean };

export const p12Label = (mode: P12Result['mode']) => `P12 ${mode}`;

const TARGET_P99_MS = 1_000;
const FLOOR_P99_MS = 5_000;

const TARGET_HOOK_P99_MS = 500;
const FLOOR_HOOK_P99_MS = 2_000;

/**
 * The P12 rows of the goals table for one mode: the p99 of "2xx → SMTP accepted" (judged on the median round),
 * its p50 (reported), emails lost and duplicated (judged on the worst round: never averaged away), and the webhook
 * half the same way: the p99 of "2xx → first webhook attempt" and webhooks lost or duplicated.
 */
export function p12Goals(result: P12Result, settings: P12Settings, problems: string[]): GoalResult[] {
  const cap = Math.round(settings.drainCapMs / 1000);
  const goal = `P12 ${result.mode === 'embedded' ? '(embedded)' : '(distributed)'}`;
  const load = `${settings.rate} submissions/s for ${settings.seconds} s, 2 verified recipients`;
  if ('skipped' in result) {
    const webhook: GoalResult = {
      ...skipped(
        goal,
        '2xx → first webhook attempt, p99',
        { op: '<=', value: TARGET_HOOK_P99_MS },
        { op: '<=', value: FLOOR_HOOK_P99_MS },
        result.skipped,
        result.fails,
      ),
      unit: 'ms',
    };
    return [
      {
        ...skipped(
          goal,
          `2xx → SMTP accepted, p99 (${load})`,
          { op: '<=', value: TARGET_P99_MS },
          { op: '<=', value: FLOOR_P99_MS },
          result.skipped,
          result.fails,
        ),
        unit: 'ms',
      },
      webhook,
    ];
  }
  const label = p12Label(result.mode);
  const invalid = problems.some((p) => p.startsWith(label)) ? 'invalid: see Problems' : undefined;
  const rounds = result.rounds;
  const worst = rounds.reduce<P12Round | undefined>(
    (w, r) => (w === undefined || r.lost + r.duplicates > w.lost + w.duplicates ? r : w),
    undefined,
  );
  const counts = worst ? `, worst round: ${worst.received} received of ${worst.expected} expected` : '';
  const zero = { op: '<=', value: 0 } as const;
  const pending = rounds.reduce((n, r) => n + r.pending, 0);
  const censored = rounds.some((r) => r.censored)
    ? `lower bound: ${pending} emails still pending ${cap} s after the last 2xx counted as arriving then`
    : undefined;
  const latency = (measure: string, of: (r: P12Round) => number, bounds: boolean) => {
    const row = judge({
      goal,
      measure,
      unit: 'ms',
      values: rounds.map(of),
      target: bounds ? { op: '<=', value: TARGET_P99_MS } : null,
      floor: bounds ? { op: '<=', value: FLOOR_P99_MS } : null,
      ...(bounds && invalid ? { invalid } : {}),
    });
    return censored && !row.note ? { ...row, note: censored } : row;
  };
  const lost = judge({
    goal,
    measure: `emails lost (none may be: 2 per acknowledged submission${counts})`,
    unit: 'count',
    values: rounds.map((r) => r.lost),
    judged: 'worst',
    target: zero,
    floor: zero,
  });
  const hooksPending = rounds.reduce((n, r) => n + r.hooks.pending, 0);
  const hookRow = judge({
    goal,
    measure: '2xx → first webhook attempt received, p99 (a Standard Webhooks endpoint on the same form)',
    unit: 'ms',
    values: rounds.map((r) => r.hooks.p99Ms),
    target: { op: '<=', value: TARGET_HOOK_P99_MS },
    floor: { op: '<=', value: FLOOR_HOOK_P99_MS },
    ...(invalid ? { invalid } : {}),
  });
  const hooksLost = judge({
    goal,
    measure: 'webhooks lost, duplicated or unexpected (one per acknowledged submission)',
    unit: 'count',
    values: rounds.map((r) => r.hooks.lost + r.hooks.duplicates + r.hooks.unexpected),
    judged: 'worst',
    target: zero,
    floor: zero,
  });
  return [
    latency(`2xx → SMTP accepted, p99 (${load})`, (r) => r.p99Ms, true),
    latency('2xx → SMTP accepted, p50', (r) => r.p50Ms, false),
    // Emails the bench stopped waiting for are neither lost nor delivered: loss is not judged then.
    pending
      ? { ...lost, meetsTarget: null, passesFloor: null, note: `not judged: ${pending} emails still pending` }
      : lost,
    judge({
      goal,
      measure: 'emails duplicated or unexpected (a second copy, an unknown submission, another address)',
      unit: 'count',
      values: rounds.map((r) => r.duplicates + r.unexpected),
      judged: 'worst',
      target: zero,
      floor: zero,
    }),
    hooksPending
      ? { ...hookRow, note: `lower bound: ${hooksPending} webhooks still pending ${cap} s after the last 2xx` }
      : hookRow,
    judge({
      goal,
      measure: '2xx → first webhook attempt received, p50',
      unit: 'ms',
      values: rounds.map((r) => r.hooks.p50Ms),
      target: null,
      floor: null,
    }),
    hooksLost,
  ];
}
