import { type Clock, mapLimit } from '@formgate/kit';
import type { DeliveryRunner } from './delivery-runner.ts';
import { type Delivery, type DeliveryStore, isFinal } from './delivery-store.ts';
import type { EmailQuota } from './email-quota.ts';

/** Deferred emails attempted per organization per pass, at most. */
const RELEASE_BATCH = 20;
/** Without a new quota view, the deferred deliveries are looked at again this often anyway (the turn of a period). */
const SWEEP_MS = 30_000;

/**
 * Sends deferred emails once their organization's quota allows again (an upgrade raised `emailsMax`, a new period
 * began). Runs in the retry worker's pass: when the quota view changed since its last look (or every 30 s, and once
 * at start), it lists the organizations with deferred emails and, for each with room, attempts its oldest deferred
 * ones up to that room. Each attempt goes through the runner (gate, then claim): two instances releasing the same
 * delivery send it once; one that finds no room leaves it deferred. All state is in the store: a restart releases
 * what was deferred before it.
 */
export function createDeferredReleaser(deps: {
  store: DeliveryStore;
  runner: DeliveryRunner;
  quota: EmailQuota;
  clock: Clock;
}) {
  let seenVersion = -1;
  let sweptAt = Number.NEGATIVE_INFINITY;

  /** One look; resolves true when there is more to release right away (a full batch was sent). */
  return async function release(): Promise<boolean> {
    const now = deps.clock.now();
    const version = deps.quota.version;
    if (version === seenVersion && now.getTime() - sweptAt < SWEEP_MS) return false;
    sweptAt = now.getTime();
    let more = false;
    for (const orgId of await deps.store.deferredOrgs()) {
      const room = deps.quota.room(orgId, now);
      if (room <= 0) continue;
      const deferred = await deps.store.listDeferred(orgId, Math.min(room, RELEASE_BATCH));
      const after = await mapLimit(deferred, 4, (d) => deps.runner.attempt(d));
      // Its outcomes are this pass's to publish (a delivery still deferred was published when it was deferred).
      await deps.runner.publishOutcomes(after.filter((d): d is Delivery => d !== null && isFinal(d.status)));
      if (deferred.length === RELEASE_BATCH && after.some((d) => d !== null && d.status !== 'deferred')) more = true;
    }
    // Looked at every organization for this view: the next pass looks again only when another view arrives.
    if (!more) seenVersion = version;
    return more;
  };
}
