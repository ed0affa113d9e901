import type { BusMessage } from '@formgate/bus';
import { billingPeriodOf, decodeEvent, type QuotaUpdated, Topics } from '@formgate/contracts';
import type { Clock, Logger } from '@formgate/kit';
import type { Mailer } from '@formgate/mail';
import type { BetterAuthPlugin } from 'better-auth';
import type { OutboxAdapter } from './org-events/schema.ts';

export const QUOTA_WARNING_MODEL = 'quotaWarning';

/** Declares the warnings already sent, in better-auth's database (migrated with it, like the outbox). */
export function quotaWarningsPlugin() {
  return {
    id: 'formgate-quota-warnings',
    schema: {
      [QUOTA_WARNING_MODEL]: {
        fields: {
          orgId: { type: 'string', required: true },
          period: { type: 'string', required: true },
          /** Epoch ms the warning was claimed by a gateway (about to send). */
          claimedAt: { type: 'number', required: true },
          /** Epoch ms it was handed to the mailer; absent while claimed but not sent (a crash in between). */
          sentAt: { type: 'number', required: false },
        },
      },
    },
  } satisfies BetterAuthPlugin;
}

/** Percentages of a meter's monthly limit at which the owners and admins hear of it, once per period each. */
export const WARNING_THRESHOLDS = [80, 100] as const;
/** A claim this old that never reached the mailer is taken over (its gateway died before sending). */
const STALE_CLAIM_MS = 5 * 60_000;

type Meter = 'submissions' | 'emails';
interface WarningRow {
  id: string;
  claimedAt: number;
  sentAt?: number | null;
}

/** The highest threshold `used` has reached of `max`, or none (no limit, or under 80 %). */
export function thresholdReached(used: number, max: number | undefined): number | undefined {
  if (max === undefined || max <= 0) return undefined;
  return [...WARNING_THRESHOLDS].reverse().find((t) => used * 100 >= max * t);
}

function warningMail(meter: Meter, threshold: number, q: { org: string; used: number; max: number; url: string }) {
  const what = meter === 'submissions' ? 'submissions' : 'notification emails';
  const subject =
    threshold >= 100
      ? `${q.org} has used all of its ${what} for this month`
      : `${q.org} has used ${threshold}% of its ${what} for this month`;
  const consequence =
    meter === 'submissions'
      ? 'New submissions are still accepted and stored, but held: they are not shown, notified or counted until you upgrade or the next period begins. Nothing is lost.'
      : 'New notification emails are deferred: they are kept and sent when you upgrade or the next period begins. Nothing is dropped.';
  const text = [
    `${q.org} has used ${q.used} of its ${q.max} ${what} this month.`,
    '',
    threshold >= 100 ? consequence : `At 100%: ${consequence}`,
    '',
    `See usage and change the plan: ${q.url}`,
  ].join('\n');
  return { subject, text };
}

/**
 * `billing.quota` → a mail to an organization's owners and admins when a meter reaches 80 % and 100 % of its plan,
 * once per (organization, period, meter, threshold). A warning is claimed by inserting its row (one insert wins
 * across gateways), mailed, then marked sent; a claim that was never marked sent is retried after five minutes, so
 * a crash between the claim and the mail delays a warning instead of losing it (and a crash between the mail and
 * the mark may send it twice: the documented window). Reaching 100 % at once also settles 80 %, without a mail.
 */
export function createQuotaWarningHandler(deps: {
  adapter: () => OutboxAdapter;
  mailer: Mailer;
  clock: Clock;
  logger: Logger;
  publicUrl: string;
}) {
  const db = deps.adapter;

  async function claim(id: string, orgId: string, period: string): Promise<boolean> {
    const now = deps.clock.now().getTime();
    try {
      await db().create({
        model: QUOTA_WARNING_MODEL,
        data: { id, orgId, period, claimedAt: now },
        forceAllowId: true,
      });
      return true;
    } catch (err) {
      const row = await db().findOne<WarningRow>({ model: QUOTA_WARNING_MODEL, where: [{ field: 'id', value: id }] });
      if (!row) throw err;
      if (row.sentAt || now - row.claimedAt < STALE_CLAIM_MS) return false;
      await db().update({
        model: QUOTA_WARNING_MODEL,
        where: [{ field: 'id', value: id }],
        update: { claimedAt: now },
      });
      return true;
    }
  }

  async function recipients(orgId: string): Promise<{ org: string; emails: string[] } | undefined> {
    const org = await db().findOne<{ name: string }>({ model: 'organization', where: [{ field: 'id', value: orgId }] });
    if (!org) return undefined;
    const members = await db().findMany<{ userId: string; role: string }>({
      model: 'member',
      where: [{ field: 'organizationId', value: orgId }],
    });
    const leads = members.filter((m) => m.role.split(',').some((r) => r === 'owner' || r === 'admin'));
    if (leads.length === 0) return { org: org.name, emails: [] };
    const users = await db().findMany<{ email: string }>({
      model: 'user',
      where: [{ field: 'id', operator: 'in', value: leads.map((m) => m.userId) }],
    });
    return { org: org.name, emails: users.map((u) => u.email) };
  }

  async function warn(q: QuotaUpdated['data'], meter: Meter, used: number, max: number | undefined) {
    const reached = thresholdReached(used, max);
    if (reached === undefined || max === undefined) return;
    const idOf = (t: number) => `${q.orgId}:${q.period}:${meter}:${t}`;
    if (!(await claim(idOf(reached), q.orgId, q.period))) return;
    // The lower thresholds are settled by this one: an organization that jumps to 100 % gets one mail.
    for (const lower of WARNING_THRESHOLDS.filter((t) => t < reached)) {
      if (await claim(idOf(lower), q.orgId, q.period))
        await db().update({
          model: QUOTA_WARNING_MODEL,
          where: [{ field: 'id', value: idOf(lower) }],
          update: { sentAt: deps.clock.now().getTime() },
        });
    }
    const to = await recipients(q.orgId);
    if (to) {
      const mail = warningMail(meter, reached, { org: to.org, used, max, url: `${deps.publicUrl}/dashboard/billing` });
      for (const email of to.emails) await deps.mailer.send({ to: email, ...mail });
      deps.logger.info(
        { orgId: q.orgId, meter, threshold: reached, recipients: to.emails.length },
        'quota warning sent',
      );
    }
    await db().update({
      model: QUOTA_WARNING_MODEL,
      where: [{ field: 'id', value: idOf(reached) }],
      update: { sentAt: deps.clock.now().getTime() },
    });
  }

  return async (batch: BusMessage[]) => {
    const period = billingPeriodOf(deps.clock.now());
    for (const m of batch) {
      const { data } = decodeEvent(Topics.billingQuota, m.value);
      // A view of a past period (read late) warns nobody: that month is over.
      if (data.period !== period) continue;
      await warn(data, 'submissions', data.submissionsUsed, data.submissionsMax);
      await warn(data, 'emails', data.emailsUsed, data.emailsMax);
    }
  };
}
