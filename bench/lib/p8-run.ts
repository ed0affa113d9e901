import { measureP8, type P8Round, type P8Seed, type P8Settings, seedP8 } from './p8.ts';
import type { P8Result } from './p8-goals.ts';
import { p8Label } from './p8-goals.ts';
import { waitForIdle } from './quiesce.ts';
import type { FormgateTarget } from './targets.ts';

export interface P8Mode {
  mode: P8Result['mode'];
  /** null when the mode could not be started: `unavailable` says why. */
  target: FormgateTarget | null;
  unavailable?: { reason: string; fails: boolean };
}

/**
 * P8 in every mode: seed each target once, then `rounds` rounds, each measuring every mode in turn once the
 * servers are idle (so one mode's leftovers do not slow the other).
 */
export async function runP8(opts: {
  modes: P8Mode[];
  settings: P8Settings;
  rounds: number;
  problems: string[];
  pids: number[];
  log: (line: string) => void;
}): Promise<P8Result[]> {
  const seeded: { mode: P8Mode['mode']; target: FormgateTarget; seed: P8Seed }[] = [];
  const results = new Map<P8Mode['mode'], P8Result>();
  for (const m of opts.modes) {
    if (!m.target) {
      const why = m.unavailable ?? { reason: 'not started', fails: false };
      results.set(m.mode, { mode: m.mode, skipped: why.reason, fails: why.fails });
      continue;
    }
    const seed = await seedP8(m.target, opts.settings);
    opts.log(`P8 ${m.mode}: seeded ${opts.settings.submissions} submissions in ${(seed.seedMs / 1000).toFixed(1)} s`);
    if (m.target.settle) opts.log(`P8 ${m.mode}: ${await m.target.settle()}`);
    seeded.push({ mode: m.mode, target: m.target, seed });
  }
  const perMode = new Map(seeded.map((s) => [s.mode, [] as P8Round[]]));
  for (let round = 1; round <= opts.rounds; round++) {
    for (const s of seeded) {
      await waitForIdle(opts.pids);
      const r = await measureP8(s.target, s.seed, opts.settings, { label: p8Label(s.mode), problems: opts.problems });
      perMode.get(s.mode)?.push(r);
      opts.log(
        `round ${round} P8 ${s.mode}: p95 first ${r.firstP95Ms.toFixed(1)} ms, deep ${r.deepP95Ms.toFixed(1)} ms, ` +
          `count ${r.countP95Ms.toFixed(1)} ms`,
      );
    }
  }
  for (const s of seeded) {
    results.set(s.mode, {
      mode: s.mode,
      submissions: opts.settings.submissions,
      seedMs: s.seed.seedMs,
      rounds: perMode.get(s.mode) ?? [],
    });
  }
  return opts.modes.map((m) => results.get(m.mode)).filter((r): r is P8Result => r !== undefined);
}
