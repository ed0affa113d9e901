import type { BusMessage } from '@formgate/bus';
import { billingPeriodOf, decodeEvent, type QuotaUpdated, Topics } from '@formgate/contracts';

type Quota = QuotaUpdated['data'];

/**
 * Views arrive out of order (several billing consumers publish them); the rule is ingest's
 * (`services/ingest/src/views/quota-view.ts`) with the emails count: an older period is stale; within a period, one
 * computed from an older subscription state is stale (a plan change is never undone by a count computed before it), and
 * from the same state, a lower emails count is.
 */
function isStale(incoming: Quota, current: Quota): boolean {
  if (incoming.period !== current.period) return incoming.period < current.period;
  const since = incoming.subscriptionChangedAt ?? '';
  const currentSince = current.subscriptionChangedAt ?? '';
  if (since !== currentSince) return since < currentSince;
  return incoming.emailsUsed < current.emailsUsed;
}

interface OrgEmails {
  view: Quota;
  /** Emails this period as far as this instance knows: the views' count, plus what it sent since (billing lags). */
  used: number;
  /** The period `used` counts. */
  period: string;
  /** Sends taken and not yet settled (`take` … `settle`). */
  inFlight: number;
}

/**
 * Notifications' view of `billing.quota` for emails (issue 13) and the gate every email attempt passes. In memory,
 * replayed from the compacted topic at start. An organization without a view, or whose view has no `emailsMax`, is
 * never held back.
 *
 * The view counts what billing metered, which lags what was sent; so that one instance does not send a whole batch
 * past the maximum before billing's next view arrives, it adds the emails it sent since (`settle`) and the sends in
 * flight (`take`). Other instances' sends show up only through billing's views: with several instances a few emails
 * past the maximum may go out (as a few submissions past it are accepted before ingest holds them).
 *
 * A view of an earlier period means the period turned and billing has not published the new one yet: nothing is
 * counted yet, and the last known maximum (the same plan) applies.
 */
export function createEmailQuota() {
  const byOrg = new Map<string, OrgEmails>();
  let version = 0;

  /** The organization's state, moved to `period` when the period turned since its last view. */
  function current(orgId: string, period: string): OrgEmails | undefined {
    const e = byOrg.get(orgId);
    if (e && e.period < period) {
      e.period = period;
      e.used = 0;
    }
    return e;
  }

  /** Emails the organization may still send in `period` (Infinity: nothing limits them). */
  function roomOf(e: OrgEmails | undefined, period: string): number {
    if (!e || e.period !== period) return Number.POSITIVE_INFINITY;
    const max = e.view.emailsMax;
    if (max === undefined) return e.view.emailsOverQuota && e.view.period === period ? 0 : Number.POSITIVE_INFINITY;
    return Math.max(0, max - e.used - e.inFlight);
  }

  return {
    /** Applies a `quota.updated` (replay and live). */
    apply(message: BusMessage) {
      const { data } = decodeEvent(Topics.billingQuota, message.value);
      const e = byOrg.get(data.orgId);
      // Nothing used at all: the organization was purged, or its period just began (billing's period watch).
      const reset = data.submissionsUsed === 0 && data.emailsUsed === 0;
      if (e && !reset && isStale(data, e.view)) return;
      version++;
      if (!e || reset || data.period > e.period) {
        byOrg.set(data.orgId, { view: data, used: data.emailsUsed, period: data.period, inFlight: e?.inFlight ?? 0 });
        return;
      }
      e.view = data;
      if (data.period === e.period) e.used = Math.max(e.used, data.emailsUsed);
    },
    /** Bumped by every view applied: the releaser looks again when it changes. */
    get version() {
      return version;
    },
    /** How many more emails the organization may send now (Infinity: no limit known). */
    room(orgId: string, now: Date): number {
      const period = billingPeriodOf(now);
      return roomOf(current(orgId, period), period);
    },
    /**
     * Takes the room of one email before its attempt; null when the organization is over quota (the email is
     * deferred). Settle the ticket once the attempt is over: `sent` when the mail server accepted it.
     */
    take(orgId: string, now: Date): { settle(sent: boolean): void } | null {
      const period = billingPeriodOf(now);
      const e = current(orgId, period);
      if (roomOf(e, period) <= 0) return null;
      const held = e !== undefined;
      if (e) e.inFlight++;
      let settled = false;
      return {
        settle(sent) {
          if (settled) return;
          settled = true;
          const after = byOrg.get(orgId);
          if (!after) return;
          if (held) after.inFlight = Math.max(0, after.inFlight - 1);
          if (sent && after.period === period) after.used++;
        },
      };
    },
  };
}

export type EmailQuota = ReturnType<typeof createEmailQuota>;
