/** A bound a measured value is held to: `>=`/`<=` a number. */
export interface Bound {
  op: '>=' | '<=';
  value: number;
}

/** One row of the results table: a goal's measure over the rounds, judged against its target and floor. */
export interface GoalResult {
  goal: string;
  measure: string;
  unit: 'ratio' | 'count' | 'ms' | 'us' | 'MB';
  /** One value per round (null where the round could not measure it). */
  values: (number | null)[];
  median: number | null;
  min: number | null;
  max: number | null;
  /** Which value is judged: the median, or the worst round (losses are never averaged away). */
  judged: 'median' | 'worst';
  target: Bound | null;
  floor: Bound | null;
  meetsTarget: boolean | null;
  /** null: no floor (reported only). A goal with a failed integrity check fails regardless of its value. */
  passesFloor: boolean | null;
  note?: string;
}

export function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? null) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

const holds = (b: Bound, v: number) => (b.op === '>=' ? v >= b.value : v <= b.value);

/** Builds a row from per-round values; `invalid` (a failed integrity check) fails it whatever the numbers say. */
export function judge(spec: {
  goal: string;
  measure: string;
  unit?: GoalResult['unit'];
  values: (number | null)[];
  judged?: GoalResult['judged'];
  target: Bound | null;
  floor: Bound | null;
  invalid?: string;
}): GoalResult {
  const present = spec.values.filter((v): v is number => v !== null && Number.isFinite(v));
  const judged = spec.judged ?? 'median';
  const min = present.length ? Math.min(...present) : null;
  const max = present.length ? Math.max(...present) : null;
  const worstOf = (b: Bound | null) => (b?.op === '<=' ? max : min);
  const missing = present.length < spec.values.length;
  const valueFor = (b: Bound | null) => (judged === 'median' ? median(present) : worstOf(b));
  const check = (b: Bound | null) => {
    if (!b) return null;
    const v = valueFor(b);
    return v !== null && !missing && holds(b, v);
  };
  const floorOk = check(spec.floor);
  return {
    goal: spec.goal,
    measure: spec.measure,
    unit: spec.unit ?? 'ratio',
    values: spec.values,
    median: median(present),
    min,
    max,
    judged,
    target: spec.target,
    floor: spec.floor,
    meetsTarget: spec.invalid ? false : check(spec.target),
    passesFloor: spec.invalid ? false : floorOk,
    ...(spec.invalid ? { note: spec.invalid } : missing ? { note: 'a round could not measure this' } : {}),
  };
}

/** A row for a goal the bench could not measure, with the reason; `fails` when that counts as a failed floor. */
export function skipped(
  goal: string,
  measure: string,
  target: Bound,
  floor: Bound | null,
  reason: string,
  fails = false,
): GoalResult {
  return {
    goal,
    measure,
    unit: 'ratio',
    values: [],
    median: null,
    min: null,
    max: null,
    judged: 'median',
    target,
    floor,
    meetsTarget: fails ? false : null,
    passesFloor: fails ? false : null,
    note: fails ? `not measured: ${reason}` : `skipped: ${reason}`,
  };
}
