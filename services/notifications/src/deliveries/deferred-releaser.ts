import { type Clock, mapLimit } from '@formgate/kit';
import { type DeferredEmails, type Delivery, isFinal } from '../store/index.ts';
import type { DeliveryRunner } from './delivery-runner.ts';
import type { EmailQuota } from './email-quota.ts';
import { DELIVERY_TUNING } from './tuning.ts';

const T = DELIVERY_TUNING;

/**
 * Sends deferred emails once their organization's quota allows again (a higher plan raised `emailsMax`, a new period
 * began). Runs in the retry worker's pass: when the quota view changed since its last look (or every
 * `releaseLookMs`, and once at start), it lists the organizations with deferred emails and, for each with room,
 * attempts its oldest deferred ones up to that room. Each attempt goes through the state machine (admission, then
 * claim): two instances releasing the same delivery send it once; one that finds no room leaves it deferred.
 */
export function createDeferredReleaser(deps: {
  stores: { deferred: DeferredEmails };
  runner: DeliveryRunner;
  quota: EmailQuota;
  clock: Clock;
}) {
  const { deferred: store } = deps.stores;
  let seenVersion = -1;
  let lookedAt = Number.NEGATIVE_INFINITY;

  /** One look; resolves true when there is more to release right away (a full batch was sent). */
  return async function release(): Promise<boolean> {
    const now = deps.clock.now();
    const version = deps.quota.version;
    if (version === seenVersion && now.getTime() - lookedAt < T.releaseLookMs) return false;
    lookedAt = now.getTime();
    let more = false;
    for (const orgId of await store.deferredOrgs()) {
      const room = deps.quota.room(orgId, now);
      if (room <= 0) continue;
      const deferred = await store.listDeferred(orgId, Math.min(room, T.releasedPerOrg));
      const after = await mapLimit(deferred, T.retriesAtOnce, (d) => deps.runner.attempt(d));
      // Its outcomes are this pass's to publish (a delivery still deferred was published when it was deferred).
      await deps.runner.publishOutcomes(after.filter((d): d is Delivery => d !== null && isFinal(d.status)));
      if (deferred.length === T.releasedPerOrg && after.some((d) => d !== null && d.status !== 'deferred')) more = true;
    }
    // Looked at every organization for this view: the next pass looks again only when another view arrives.
    if (!more) seenVersion = version;
    return more;
  };
}
