import { type GoalResult, judge, skipped } from './goals.ts';
import type { AbsoluteRow } from './report.ts';
import type { IngestRun, Measurement, RoundResult } from './rounds.ts';

const rps = (r: RoundResult, m: Measurement) => r.runs[m]?.rps ?? null;
const ratio = (a: number | null, b: number | null) => (a !== null && b !== null && b > 0 ? a / b : null);

function invalidIf(problems: string[], ...labels: string[]): string | undefined {
  const hit = problems.filter((p) => labels.some((l) => p.startsWith(l)));
  return hit.length ? `invalid: ${hit.length} integrity problem(s), see Problems` : undefined;
}

/** Turns the rounds into the goals table (ratios per round, judged on the median or the worst round). */
export function evaluate(
  rounds: RoundResult[],
  problems: string[],
  p2Unavailable: { reason: string; fails: boolean } | null,
): GoalResult[] {
  const per = (f: (r: RoundResult) => number | null) => rounds.map(f);
  const goals: GoalResult[] = [
    judge({
      goal: 'P1',
      measure: 'embedded ingest, urlencoded 51 B: rps / rps(B0)',
      values: per((r) => ratio(rps(r, 'P1'), rps(r, 'B0'))),
      // Embedded mode has both cores (its services thread, ADR 77); B0 uses one.
      target: { op: '>=', value: 0.5 },
      floor: { op: '>=', value: 0.15 },
      invalid: invalidIf(problems, 'B0', 'P1 '),
    }),
    judge({
      goal: 'P1j',
      measure: 'same as JSON: rps / rps(P1)',
      values: per((r) => ratio(rps(r, 'P1j'), rps(r, 'P1'))),
      target: { op: '>=', value: 0.9 },
      floor: { op: '>=', value: 0.7 },
      invalid: invalidIf(problems, 'P1 ', 'P1j'),
    }),
    judge({
      goal: 'P1m',
      measure: 'multipart, 3 fields + 1 KB file: rps / rps(P1)',
      values: per((r) => ratio(rps(r, 'P1m'), rps(r, 'P1'))),
      target: { op: '>=', value: 0.5 },
      floor: { op: '>=', value: 0.3 },
      invalid: invalidIf(problems, 'P1 ', 'P1m'),
    }),
    judge({
      goal: 'P1s',
      measure:
        'every spam layer but the captcha (issue 14): rps / rps(P1o), P1o = the same request to a form without layers',
      values: per((r) => ratio(rps(r, 'P1s'), rps(r, 'P1o'))),
      target: { op: '>=', value: 0.95 },
      floor: { op: '>=', value: 0.9 },
      invalid: invalidIf(problems, 'P1o', 'P1s'),
    }),
    judge({
      goal: 'P1s/P1',
      measure: 'the same against P1 (reported: also counts the stamp field and the Origin header)',
      values: per((r) => ratio(rps(r, 'P1s'), rps(r, 'P1'))),
      target: { op: '>=', value: 0.9 },
      floor: null,
      invalid: invalidIf(problems, 'P1 ', 'P1s'),
    }),
    ...(p2Unavailable === null
      ? [
          judge({
            goal: 'P2',
            measure: 'distributed (gateway → ingest → Kafka; consumers stopped meanwhile, ADR 79): rps / rps(B0)',
            values: per((r) => ratio(rps(r, 'P2'), rps(r, 'B0'))),
            target: { op: '>=', value: 0.12 },
            floor: { op: '>=', value: 0.06 },
            invalid: invalidIf(problems, 'B0', 'P2'),
          }),
          judge({
            goal: 'P2w',
            measure:
              'the same with the consumers running (the whole deployment on the two cores; reported): rps / rps(B0)',
            values: per((r) => ratio(rps(r, 'P2w'), rps(r, 'B0'))),
            target: { op: '>=', value: 0.06 },
            floor: null,
            invalid: invalidIf(problems, 'B0', 'P2w'),
          }),
        ]
      : [
          skipped(
            'P2',
            'distributed (gateway → ingest → Kafka): rps / rps(B0)',
            { op: '>=', value: 0.12 },
            { op: '>=', value: 0.06 },
            p2Unavailable.reason,
            p2Unavailable.fails,
          ),
        ]),
    ...gatewayHop(rounds, problems, p2Unavailable),
    ...stageBudget(rounds, 'P1', 'embedded'),
    ...stageBudget(rounds, 'P2', 'distributed'),
    ...burstGoals(rounds, problems),
  ];
  return goals;
}

function burstGoals(rounds: RoundResult[], problems: string[]): GoalResult[] {
  const per = (f: (r: RoundResult) => number | null) => rounds.map(f);
  return [
    judge({
      goal: 'P7',
      measure: '10,000 over 200 connections: burst rps / steady rps (P1, same round)',
      values: per((r) => ratio(r.P7?.burstRps ?? null, rps(r, 'P1'))),
      target: { op: '>=', value: 0.8 },
      floor: { op: '>=', value: 0.5 },
      invalid: invalidIf(problems, 'P1 '),
    }),
    judge({
      goal: 'P7',
      measure: 'lost: acknowledged ids missing from the submissions list, or not counted',
      unit: 'count',
      judged: 'worst',
      values: per((r) => (r.P7 ? r.P7.missingIds + Math.max(0, r.P7.acknowledged - r.P7.dashboardCount) : null)),
      target: { op: '<=', value: 0 },
      floor: { op: '<=', value: 0 },
    }),
    judge({
      goal: 'P7',
      measure: 'acknowledged (2xx) of 10,000 sent',
      unit: 'count',
      judged: 'worst',
      values: per((r) => r.P7?.acknowledged ?? null),
      target: { op: '>=', value: 10_000 },
      floor: null,
    }),
    judge({
      goal: 'P7',
      measure: 'last response → dashboard count = acknowledged',
      unit: 'ms',
      judged: 'worst',
      values: per((r) => r.P7?.countLagMs ?? null),
      target: { op: '<=', value: 1000 },
      floor: null,
    }),
  ];
}

/** The wrk connections of every throughput run: P3's TIME_WAIT bound is twice that. */
const CONNECTIONS = 50;

/**
 * P3, the gateway's hop in distributed mode: P2 (through the gateway) against P2i (the same load straight at ingest)
 * of the same round, and the gateway → ingest connections P2 left in TIME_WAIT.
 */
function gatewayHop(
  rounds: RoundResult[],
  problems: string[],
  p2Unavailable: { reason: string; fails: boolean } | null,
): GoalResult[] {
  const measure = 'gateway hop: P2 rps / ingest-direct rps';
  const target = { op: '>=' as const, value: 0.5 };
  const floor = { op: '>=' as const, value: 0.3 };
  if (p2Unavailable) return [skipped('P3', measure, target, floor, p2Unavailable.reason, p2Unavailable.fails)];
  return [
    judge({
      goal: 'P3',
      measure,
      values: rounds.map((r) => ratio(rps(r, 'P2'), rps(r, 'P2i'))),
      target,
      floor,
      invalid: invalidIf(problems, 'P2'),
    }),
    judge({
      goal: 'P3',
      measure: `gateway → ingest connections in TIME_WAIT after P2 (${CONNECTIONS} client connections)`,
      unit: 'count',
      judged: 'worst',
      values: rounds.map((r) => (r.runs.P2 as IngestRun | undefined)?.timeWait ?? null),
      target: { op: '<=', value: 2 * CONNECTIONS },
      floor: null,
    }),
  ];
}

/**
 * The hot path's budget (reported, not judged): µs per accepted submission of each stage of ingest during the P1 / P2
 * throughput runs (`stages.ts`), so a regression shows which stage grew.
 */
function stageBudget(rounds: RoundResult[], m: 'P1' | 'P2', mode: string): GoalResult[] {
  const runs = rounds.map((r) => (r.runs[m] as IngestRun | undefined)?.stagesUs ?? null);
  const stages = [...new Set(runs.flatMap((s) => (s ? Object.keys(s) : [])))];
  return stages.map((stage) =>
    judge({
      goal: `${m} stages`,
      measure: `${mode} ${stage}, µs per accepted submission (under full load)`,
      unit: 'us',
      values: runs.map((s) => s?.[stage] ?? null),
      target: null,
      floor: null,
    }),
  );
}

/** Absolute requests per second per target and round, for context. */
export function absolutes(rounds: RoundResult[]): AbsoluteRow[] {
  const labels: [Measurement | 'P7', string][] = [
    ['B0', 'B0 bare node:http, 303 without reading'],
    ['B1', 'B1 node:http + URLSearchParams'],
    ['P1', 'P1 embedded, urlencoded'],
    ['P1j', 'P1j embedded, JSON'],
    ['P1m', 'P1m embedded, multipart + 1 KB'],
    ['P1o', 'P1o embedded, P1s request (stamp field, Origin), no spam layer'],
    ['P1s', 'P1s embedded, urlencoded, every spam layer but the captcha'],
    ['P2', 'P2 distributed, urlencoded'],
    ['P2w', 'P2w distributed, urlencoded, consumers running'],
    ['P2i', 'P2i distributed ingest direct (no gateway), urlencoded'],
    ['P7', 'P7 burst (10,000 × 200 connections)'],
  ];
  return labels
    .map(([m, label]) => ({
      label,
      rps: rounds
        .map((r) => (m === 'P7' ? (r.P7?.burstRps ?? null) : rps(r, m)))
        .filter((x): x is number => x !== null),
    }))
    .filter((row) => row.rps.length > 0);
}
