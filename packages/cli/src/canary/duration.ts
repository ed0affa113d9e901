import { CliError } from '../http.ts';

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * `--deadline` and `--every`: a whole number with a unit (`1500ms`, `60s`, `5m`, `1h`), as Prometheus and
 * Kubernetes write durations. A bare number is refused: seconds and milliseconds are both plausible readings.
 */
export function parseDuration(option: string, text: string): number {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text.trim());
  const ms = match ? Number(match[1]) * (UNITS[match[2] as string] as number) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0)
    throw new CliError(`--${option} takes a duration such as 1500ms, 60s, 5m or 1h (got "${text}")`);
  return ms;
}
