import { createRelayLoop } from '@formgate/kit';
import { type RetentionDeps, sweepRetention } from './use-cases/retention.ts';

/** How often the retention sweep runs by default: an expired submission goes within the hour. */
export const RETENTION_SWEEP_MS = 3_600_000;

/**
 * The retention's schedule (issue 31): a sweep (`sweepRetention`) at start, then every `intervalMs`, and on `kick`
 * (a shorter retention was just set). Each instance of the forms service runs its own: sweeps at once delete each
 * submission once. A failed sweep is logged and the next one picks up where it stopped.
 */
export function createRetentionSweep(deps: RetentionDeps & { intervalMs: number }) {
  const loop = createRelayLoop({
    pass: async () => {
      await sweepRetention(deps);
      return false;
    },
    intervalMs: deps.intervalMs,
    onError: (err) => deps.logger.warn({ err }, 'the retention sweep failed; it runs again at the next interval'),
  });
  return { kick: loop.kick, start: loop.start, stop: loop.stop };
}
