import type { Delivery } from '../store/index.ts';
import { cheapFirst } from './channel.ts';
import type { HandlerDeps } from './submission-received.handler.ts';

/**
 * Plans `wanted` (insert-if-absent), makes the first attempt of those never claimed, and publishes the final
 * outcomes of these deliveries (again, with the same event ids, when the event is redelivered).
 */
export async function planAndAttempt(
  deps: Pick<HandlerDeps, 'stores' | 'channels' | 'runner'>,
  orgId: string,
  submissionId: string,
  wanted: Delivery[],
) {
  const planned = await deps.stores.log.planDeliveries(wanted);
  const fresh = cheapFirst(
    deps.channels,
    planned.filter((d) => d.lastClaimed === 0),
  );
  await Promise.all(fresh.map((d) => deps.runner.attempt(d)));
  const ids = new Set(wanted.map((d) => d.id));
  const after = await deps.stores.log.listBySubmission({ orgId }, submissionId);
  await deps.runner.publishOutcomes(after.filter((d) => ids.has(d.id)));
}
