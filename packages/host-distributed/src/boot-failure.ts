import { classifyFailure } from '@formgate/bus';
import { within } from './boot-loop.ts';

/** How long the probes that judge a boot failure may take before their dependency counts as down. */
const PROBE_TIMEOUT_MS = 3_000;

type ErrorLike = { name?: unknown; cause?: unknown; retriable?: unknown };

/** The dependency an error's chain names: the bus or a kafkajs error Kafka may clear by itself, or MongoDB's. */
export function dependencyNamedBy(err: unknown): 'kafka' | 'mongodb' | undefined {
  const seen = new Set<unknown>();
  for (let e = err; typeof e === 'object' && e !== null && !seen.has(e); e = (e as ErrorLike).cause) {
    seen.add(e);
    const { name, retriable } = e as ErrorLike;
    if (typeof name !== 'string') continue;
    // A broker that has just started answers "no leader for this partition" and the like for a while (retriable).
    if (name === 'BusUnavailableError' || (name.startsWith('KafkaJS') && retriable === true)) return 'kafka';
    if (name.startsWith('Mongo')) return 'mongodb';
  }
  return undefined;
}

export interface DependencyProbes {
  /** Resolves when the broker answers (`EventBus.ping`). */
  bus(): Promise<void>;
  /** Whether every database opened so far takes a write (`StoreHealth.healthy`). */
  stores(): Promise<boolean>;
}

/**
 * What a failed boot attempt waits for: `kafka` or `mongodb` when the failure is transient (`classifyFailure`) or a
 * kafkajs error Kafka may clear, or when — whatever the error — the broker or a database does not answer now;
 * undefined when both answer and the error is not a dependency's (a bug, a bad setting: the boot stops with it).
 */
export async function awaitedDependency(err: unknown, probes: DependencyProbes): Promise<string | undefined> {
  const named = dependencyNamedBy(err);
  if (named === 'kafka' || classifyFailure(err) === 'transient') return named ?? 'a dependency';
  const [busUp, storesUp] = await Promise.all([
    within(probes.bus(), PROBE_TIMEOUT_MS).then(
      () => true,
      () => false,
    ),
    within(probes.stores(), PROBE_TIMEOUT_MS).catch(() => false),
  ]);
  if (!busUp) return 'kafka';
  if (!storesUp) return 'mongodb';
  return undefined;
}
