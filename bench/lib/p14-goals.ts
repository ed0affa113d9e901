import { type Bound, type GoalResult, judge, skipped } from './goals.ts';
import { type CommandCounts, type P14Level, type P14Result, type P14Settings, splitKey } from './p14.ts';

/** Target and floor of commands per accepted submission, by the goal's rate. */
const BOUNDS: Record<number, { target: Bound; floor: Bound }> = {
  100: { target: { op: '<=', value: 1 }, floor: { op: '<=', value: 3 } },
  1000: { target: { op: '<=', value: 0.2 }, floor: { op: '<=', value: 1 } },
};

const boundsOf = (rate: number) => BOUNDS[rate] ?? { target: { op: '<=', value: 1 }, floor: { op: '<=', value: 3 } };

/**
 * The bounds a level is held to: its goal rate's when it was measured at that rate; otherwise those of the highest
 * goal rate the measured one reaches (100/s for a 1,000/s level measured at 150/s), none below every goal rate.
 */
function appliedBounds(level: P14Level): { target: Bound; floor: Bound; rate: number } | null {
  if (level.rate === level.goalRate) return { ...boundsOf(level.goalRate), rate: level.goalRate };
  const reached = Object.keys(BOUNDS)
    .map(Number)
    .filter((r) => r <= level.rate)
    .sort((a, b) => b - a)[0];
  return reached === undefined ? null : { ...boundsOf(reached), rate: reached };
}
const fmtRate = (rate: number) => `${rate.toLocaleString('en-US')}/s`;

function measureOf(goalRate: number, settings: P14Settings) {
  return (
    `Mongo commands of the whole distributed deployment per accepted submission (ingest → 2 mails + 1 webhook), ` +
    `steady ${fmtRate(goalRate)} for ${settings.seconds} s`
  );
}

/**
 * The P14 rows: per goal rate, commands per accepted submission (judged on the median round), with a note when the
 * rate could not be sustained and a lower one was measured; and the deployment's commands per second at idle
 * (reported, included in every figure).
 */
export function p14Goals(result: P14Result, settings: P14Settings, problems: string[]): GoalResult[] {
  if ('skipped' in result) {
    return settings.rates.map((rate) => {
      const b = boundsOf(rate);
      return {
        ...skipped('P14', measureOf(rate, settings), b.target, b.floor, result.skipped, result.fails),
        unit: 'ratio',
      };
    });
  }
  const rows = result.levels.map((level) => {
    const b = appliedBounds(level);
    const where = `P14 at ${level.goalRate}/s`;
    const hit = problems.filter((p) => p.startsWith(`${where} `));
    const row = judge({
      goal: 'P14',
      measure: measureOf(level.goalRate, settings),
      values: level.rounds.map((r) => r.perSubmission),
      target: b?.target ?? null,
      floor: b?.floor ?? null,
      ...(hit.length ? { invalid: `invalid: ${hit.length} integrity problem(s), see Problems` } : {}),
    });
    const note = rateNote(level, b?.rate ?? null);
    return note ? { ...row, note: row.note ? `${row.note}; ${note}` : note } : row;
  });
  // P6: ingest's batching toward Kafka, at the goal rate as offered (ingest takes it even where delivery lags).
  for (const level of result.levels) {
    const runs = level.probe ? [level.probe] : level.rounds;
    rows.push(
      judge({
        goal: 'P6',
        measure: `ingest's Kafka produce requests per accepted submission, ${runs[0]?.rate ?? level.rate}/s offered`,
        values: runs.map((r) => r.produceRequestsPerSubmission),
        target: level.goalRate >= 1_000 ? { op: '<=', value: 0.1 } : null,
        floor: null,
      }),
    );
  }
  const idle = [...result.idle.commands.values()].reduce((a, b) => a + b, 0) / result.idle.seconds;
  rows.push(
    judge({
      goal: 'P14',
      measure: 'the deployment at idle, Mongo commands per second (counted in the rows above too)',
      unit: 'count',
      values: [idle],
      target: null,
      floor: null,
    }),
  );
  return rows;
}

/** Says at which rate a goal rate was measured when it is not the goal's own, and which bounds it is held to. */
function rateNote(level: P14Level, boundsRate: number | null): string | undefined {
  if (level.rate === level.goalRate) return undefined;
  const held = boundsRate === null ? 'not judged (below every goal rate)' : `held to the ${fmtRate(boundsRate)} bounds`;
  const p = level.probe;
  const probe = p
    ? `: at ${fmtRate(p.rate)} everything was delivered ${(p.pipelineMs / 1000).toFixed(1)} s after the first ` +
      `request of a ${p.seconds} s load (${Math.round(p.deliveredRate)}/s carried, ${p.perSubmission.toFixed(3)} ` +
      'commands per submission)'
    : '';
  return `${fmtRate(level.goalRate)} NOT sustained on this machine${probe}; measured at ${fmtRate(level.rate)} and ${held}`;
}

/** The top commands by (process, database, command), per submission over every round of a level. */
function topLines(commands: CommandCounts, divisor: number, unit: string, limit = 12): string[] {
  const total = [...commands.values()].reduce((a, b) => a + b, 0);
  const sorted = [...commands.entries()].sort((a, b) => b[1] - a[1]);
  const shown = sorted.slice(0, limit);
  const rest = sorted.slice(limit).reduce((a, [, v]) => a + v, 0);
  return [
    `| process | db | command | ${unit} | share |`,
    '|---|---|---|---|---|',
    ...shown.map(([key, v]) => {
      const [process, db, command] = splitKey(key);
      return `| ${process} | ${db} | ${command} | ${(v / divisor).toFixed(3)} | ${((v / total) * 100).toFixed(1)} % |`;
    }),
    ...(rest
      ? [
          `| (${sorted.length - limit} more) | | | ${(rest / divisor).toFixed(3)} | ${((rest / total) * 100).toFixed(1)} % |`,
        ]
      : []),
  ];
}

function add(into: CommandCounts, from: CommandCounts) {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

/** The report's context section for P14: where the commands go, per level and at idle. */
export function p14Context(result: P14Result): { title: string; lines: string[] }[] {
  if ('skipped' in result) return [];
  const lines: string[] = [];
  for (const level of result.levels) {
    const commands: CommandCounts = new Map();
    for (const r of level.rounds) add(commands, r.commands);
    const acknowledged = level.rounds.reduce((a, r) => a + r.acknowledged, 0);
    const window = level.rounds.reduce((a, r) => a + r.windowMs, 0) / 1000;
    lines.push(
      `**At ${fmtRate(level.goalRate)}**${level.rate === level.goalRate ? '' : ` (measured at ${fmtRate(level.rate)})`}: ` +
        `${acknowledged} submissions over ${level.rounds.length} round(s), counted over ${window.toFixed(0)} s ` +
        '(load, deliveries, counters settling); commands per submission:',
      '',
      ...topLines(commands, acknowledged, 'per submission'),
      '',
    );
  }
  lines.push(
    `**At idle** (${result.idle.seconds} s, before the load), commands per second:`,
    '',
    ...topLines(result.idle.commands, result.idle.seconds, 'per second', 8),
  );
  return [{ title: 'P14: Mongo commands by process, database and command', lines }];
}

/** `results.json`'s P14: the command counts as objects keyed `process/db/command`. */
export function p14Json(result: P14Result | null): unknown {
  if (result === null || 'skipped' in result) return result;
  const counts = (c: CommandCounts) => Object.fromEntries([...c].map(([k, v]) => [splitKey(k).join('/'), v]));
  const run = (r: P14Level['rounds'][number]) => ({ ...r, commands: counts(r.commands) });
  return {
    setupMs: result.setupMs,
    idle: { seconds: result.idle.seconds, commands: counts(result.idle.commands) },
    levels: result.levels.map((l) => ({ ...l, probe: l.probe ? run(l.probe) : undefined, rounds: l.rounds.map(run) })),
  };
}
