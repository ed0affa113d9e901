import { type Bound, type GoalResult, judge, skipped } from './goals.ts';
import type { P11Result, P11Round, P11Server } from './p11.ts';

/**
 * Bounds of ΔRSS / ΔRSS(B0). The embedded host's public port is held to ingest's: its `POST /f/*` is ingest's fast
 * path in the same process, with no second hop.
 */
const BOUNDS: Record<Exclude<P11Server, 'B0'>, { target: Bound; floor: Bound; what: string }> = {
  embedded: {
    target: { op: '<=', value: 1.5 },
    floor: { op: '<=', value: 2.5 },
    what: "embedded Formgate's public port (held to ingest's bounds)",
  },
  ingest: {
    target: { op: '<=', value: 1.5 },
    floor: { op: '<=', value: 2.5 },
    what: 'distributed ingest process, directly',
  },
  gateway: {
    target: { op: '<=', value: 2 },
    floor: { op: '<=', value: 3.5 },
    what: 'distributed gateway, forwarding `/f/*` to ingest',
  },
};

const label = (server: P11Server) => `P11 ${server}`;

/**
 * The P11 rows: per server, ΔRSS / ΔRSS(B0) of the same round (judged on the median round) and ΔRSS per 1,000
 * idle connections (reported); B0's own ΔRSS per 1,000 (reported).
 */
export function p11Goals(results: P11Result[], problems: string[]): GoalResult[] {
  const b0 = results.find((r) => r.server === 'B0');
  const b0Rounds = b0 && 'rounds' in b0 ? b0.rounds : null;
  const n = results.find((r): r is Extract<P11Result, { rounds: P11Round[] }> => 'rounds' in r)?.connections;
  const per = `per 1,000 idle keep-alive connections (${n ?? '?'} opened a round, one POST each)`;
  const invalidOf = (server: P11Server) => {
    const hit = problems.filter(
      (p) => p.startsWith(`${label(server)} `) || (server !== 'B0' && p.startsWith('P11 B0 ')),
    );
    return hit.length ? `invalid: ${hit.length} integrity problem(s), see Problems` : undefined;
  };
  const rows: GoalResult[] = [];
  for (const r of results) {
    const goal = `P11 (${r.server})`;
    if (r.server === 'B0') {
      rows.push(
        'rounds' in r
          ? judge({
              goal,
              measure: `ΔRSS ${per}: B0, bare node:http (the denominator)`,
              unit: 'MB',
              values: r.rounds.map((x) => x.mbPer1000),
              target: null,
              floor: null,
              invalid: invalidOf('B0'),
            })
          : { ...skipped(goal, `ΔRSS ${per}: B0`, { op: '<=', value: 0 }, null, r.skipped, r.fails), target: null },
      );
      continue;
    }
    const bounds = BOUNDS[r.server];
    const measure = `ΔRSS / ΔRSS(B0), ${bounds.what}`;
    if ('skipped' in r) {
      rows.push(skipped(goal, measure, bounds.target, bounds.floor, r.skipped, r.fails));
      continue;
    }
    const invalid = invalidOf(r.server);
    rows.push(
      judge({
        goal,
        measure,
        values: r.rounds.map((x, i) => {
          const base = b0Rounds?.[i]?.mbPer1000;
          return base !== undefined && base > 0 ? x.mbPer1000 / base : null;
        }),
        target: bounds.target,
        floor: bounds.floor,
        ...(invalid ? { invalid } : b0Rounds ? {} : { invalid: 'invalid: B0 was not measured' }),
      }),
      judge({
        goal,
        measure: `ΔRSS ${per}`,
        unit: 'MB',
        values: r.rounds.map((x) => x.mbPer1000),
        target: null,
        floor: null,
      }),
    );
  }
  return rows;
}
