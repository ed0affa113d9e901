import { billingPeriodOf } from '@formgate/contracts';
import type { Clock, Logger } from '@formgate/kit';
import type { Quota } from './quota.ts';
import type { HeldStore } from './store/held-store.ts';

/**
 * At the start of each period, publishes the new period's view (nothing used yet) of every organization with held
 * submissions or deferred notification emails, so forms releases the submissions, ingest stops holding and
 * notifications sends the emails. Checks the injected clock every `intervalMs`, and
 * once at start (a restart across the turn of a month). Failures are logged and retried at the next check.
 */
export function startPeriodWatch(deps: {
  clock: Clock;
  held: HeldStore;
  deferredEmails: HeldStore;
  quota: Quota;
  logger: Logger;
  intervalMs: number;
}) {
  let published: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  const check = async () => {
    const period = billingPeriodOf(deps.clock.now());
    if (period === published) return;
    try {
      const orgs = [...(await deps.held.orgsWithHeld()), ...(await deps.deferredEmails.orgsWithHeld())];
      // `publish` publishes each organization once.
      await deps.quota.publish(orgs.map((orgId) => ({ orgId, period })));
      published = period;
    } catch (err) {
      deps.logger.warn({ err, period }, 'publishing the new period’s quota views failed; retrying');
    }
  };
  const tick = () => {
    running = check().finally(() => {
      if (!stopped) timer = setTimeout(tick, deps.intervalMs);
    });
  };
  tick();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
