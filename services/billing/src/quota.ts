import type { EventPublisher } from '@formgate/bus';
import { billingPeriodOf, type Plan, type QuotaUpdated, Topics } from '@formgate/contracts';
import type { Clock, PlanCatalog } from '@formgate/kit';
import { quotaUpdatedMessage } from './quota-event.ts';
import type { HeldStore } from './store/held-store.ts';
import type { SubscriptionState } from './store/records.ts';
import type { StorageStore } from './store/storage-store.ts';
import type { SubscriptionStore } from './store/subscription-store.ts';
import type { UsageStore } from './store/usage-store.ts';

const MIB = 1024 * 1024;
/** MiB with two decimals, rounded up: a few bytes show as 0.01, never as nothing. */
export const toMb = (bytes: number) => Math.ceil((bytes / MIB) * 100) / 100;

/** Statuses whose plan is in effect: Stripe keeps serving a `past_due` subscription while it retries the payment. */
const IN_EFFECT = new Set<string>(['active', 'trialing', 'past_due']);

/** The plan an organization is on: its subscription's, while in effect and still in the catalog; else the default. */
export function effectivePlan(catalog: PlanCatalog, subscription: SubscriptionState | null): Plan {
  const subscribed =
    subscription?.status && IN_EFFECT.has(subscription.status) ? catalog.byId(subscription.planId) : undefined;
  return subscribed ?? catalog.resolve(undefined);
}

export interface QuotaDeps {
  usage: UsageStore;
  emails: UsageStore;
  held: HeldStore;
  subscriptions: SubscriptionStore;
  storage: Pick<StorageStore, 'usedBytes'>;
  catalog: PlanCatalog;
  bus: EventPublisher;
  clock: Clock;
}

export interface OrgQuota {
  view: QuotaUpdated['data'];
  plan: Plan;
  subscription: SubscriptionState | null;
}

/** Reads an organization's quota view for a period from the ledgers, and publishes it to `billing.quota`. */
export function createQuota(deps: QuotaDeps) {
  async function quotaOf(orgId: string, period: string): Promise<OrgQuota> {
    const [subscription, used, held, emailsUsed] = await Promise.all([
      deps.subscriptions.get({ orgId }),
      deps.usage.getUsage({ orgId }, period),
      deps.held.countHeld({ orgId }),
      deps.emails.getUsage({ orgId }, period),
    ]);
    const plan = effectivePlan(deps.catalog, subscription);
    const { submissionsPerMonth: max, emailsPerMonth: emailsMax } = plan.limits;
    const view = {
      orgId,
      period,
      planId: plan.id,
      subscriptionChangedAt: subscription?.changedAt ?? null,
      submissionsUsed: used,
      submissionsMax: max,
      overQuota: used >= max,
      submissionsHeld: held,
      emailsUsed,
      emailsMax,
      emailsOverQuota: emailsUsed >= emailsMax,
    };
    return { view, plan, subscription };
  }

  /** The organization's stored files against its plan (a sum over its files: only where storage may have changed). */
  async function fileStorageOf(orgId: string, plan: Plan, measuredAt: string) {
    const usedMb = toMb(await deps.storage.usedBytes({ orgId }));
    const maxMb = plan.limits.fileStorageMb;
    return { usedMb, maxMb, full: maxMb !== null && usedMb >= maxMb, measuredAt };
  }

  /**
   * Publishes the view of every (organization, period) given; the current period when none is named. With
   * `storage`, the views measure the organizations' file storage too (files were stored or freed, or the plan
   * changed).
   */
  async function publish(targets: Iterable<{ orgId: string; period?: string }>, options: { storage?: boolean } = {}) {
    const now = deps.clock.now();
    const occurredAt = now.toISOString();
    const seen = new Set<string>();
    const views: QuotaUpdated['data'][] = [];
    for (const t of targets) {
      const period = t.period ?? billingPeriodOf(now);
      const slot = `${t.orgId}\u0000${period}`;
      if (seen.has(slot)) continue;
      seen.add(slot);
      const { view, plan } = await quotaOf(t.orgId, period);
      views.push(options.storage ? { ...view, fileStorage: await fileStorageOf(t.orgId, plan, occurredAt) } : view);
    }
    if (views.length === 0) return;
    await deps.bus.publish(
      Topics.billingQuota,
      views.map((v) => quotaUpdatedMessage(v, occurredAt)),
    );
  }

  return { quotaOf, publish };
}

export type Quota = ReturnType<typeof createQuota>;
