import {
  effectiveRetention,
  type Form,
  type FormRetentionDto,
  type OrgScope,
  type RetentionPolicyDto,
} from '@formgate/contracts';
import { AppError, type Clock, type Ids, type Logger } from '@formgate/kit';
import type { RetentionStore } from '../store/retention.ts';
import type { SubmissionChanges } from '../store/submission-changes.ts';

const DAY_MS = 86_400_000;
/** Submissions changed per read of a form's expired ones. */
const EXPIRED_PAGE = 200;
/** Forms read per page of the sweep's walk. */
const FORMS_PAGE = 200;

/** The plan's maximum retention of an organization, in days (null: none). */
export type RetentionLimit = (orgId: string) => number | null;

export interface RetentionDeps {
  retention: RetentionStore;
  changes: SubmissionChanges;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  retentionLimit: RetentionLimit;
  /** Runs the outbox relay: the expired submissions' files go, then their `submission.deleted` events. */
  publishChanges: () => Promise<boolean>;
}

/** Where a form's retention is in a create or PATCH request. */
export const RETENTION_FIELD = 'settings.retentionDays';

/**
 * Refuses more days than the plan allows: 403 `PLAN_LIMIT_REACHED` on `field`, `details: {limit: "retentionDays",
 * max}` (a valid request the plan does not allow, as for the forms and members limits).
 */
export function checkRetentionDays(days: number | null | undefined, max: number | null, field: string): void {
  if (days === undefined || days === null || max === null || days <= max) return;
  const message = `The organization's plan keeps submissions at most ${max} day${max === 1 ? '' : 's'}`;
  throw new AppError('PLAN_LIMIT_REACHED', message, { field, details: { limit: 'retentionDays', max } });
}

/** `GET /api/v1/retention`. */
export async function retentionPolicy(
  deps: Pick<RetentionDeps, 'retention' | 'retentionLimit'>,
  scope: OrgScope,
): Promise<RetentionPolicyDto> {
  return { days: await deps.retention.getOrgDays(scope), planMaxDays: deps.retentionLimit(scope.orgId) };
}

/**
 * `GET /api/v1/forms/{formId}/retention`: the retention in force and when the oldest live submission goes (its
 * `createdAt` plus the days; the sweep deletes it within its interval after that).
 */
export async function formRetention(
  deps: Pick<RetentionDeps, 'retention' | 'retentionLimit'>,
  scope: OrgScope,
  form: Form,
): Promise<FormRetentionDto> {
  const { days: organizationDays, planMaxDays } = await retentionPolicy(deps, scope);
  const formDays = form.settings.retentionDays;
  const { days, source } = effectiveRetention(formDays, organizationDays, planMaxDays);
  const oldestSubmissionAt = await deps.retention.oldestAt(scope, form.id);
  const nextDeletionAt =
    days !== null && oldestSubmissionAt !== null
      ? new Date(Date.parse(oldestSubmissionAt) + days * DAY_MS).toISOString()
      : null;
  return { days, source, formDays, organizationDays, planMaxDays, oldestSubmissionAt, nextDeletionAt };
}

/** Deletes one form's submissions older than `days` as `erase` marked `expired`; returns how many it deleted. */
async function expireForm(deps: RetentionDeps, form: Form, days: number, now: Date): Promise<number> {
  const scope = { orgId: form.orgId };
  const before = new Date(now.getTime() - days * DAY_MS).toISOString();
  let expired = 0;
  for (;;) {
    const page = await deps.retention.listExpired(scope, form.id, before, EXPIRED_PAGE);
    for (const s of page) {
      const meta = { id: deps.ids.next(), occurredAt: deps.clock.now().toISOString(), expired: true as const };
      // Another instance's sweep, or an erasure, may have deleted it meanwhile: `not_found`, nothing to do.
      if ((await deps.changes.changeSubmission(scope, form.id, s.id, 'erase', meta)) === 'changed') expired++;
    }
    if (page.length < EXPIRED_PAGE) return expired;
  }
}

/**
 * One sweep of the retention (issue 31): every form whose retention in force (`effectiveRetention`) is set loses
 * the submissions received more than that many days ago, held ones included, each deleted as an erasure deletes
 * (fields, files, search terms, address keys; notifications forget their copies and redact the delivery log on
 * its `submission.deleted`, marked `expired`, which tells no webhook). Each deletion is one durable change with its
 * event, so a sweep cut short by a crash leaves what it deleted deleted and the next sweep deletes the rest; sweeps
 * of several instances at once delete each submission once (the second change of one finds it gone). Returns how
 * many submissions it deleted.
 */
export async function sweepRetention(deps: RetentionDeps): Promise<number> {
  const now = deps.clock.now();
  const orgDays = new Map<string, number | null>();
  let deleted = 0;
  for (let after = ''; ; ) {
    const forms = await deps.retention.listForms(after, FORMS_PAGE);
    for (const form of forms) {
      if (!orgDays.has(form.orgId)) orgDays.set(form.orgId, await deps.retention.getOrgDays({ orgId: form.orgId }));
      const { days } = effectiveRetention(
        form.settings.retentionDays,
        orgDays.get(form.orgId) ?? null,
        deps.retentionLimit(form.orgId),
      );
      if (days === null) continue;
      const expired = await expireForm(deps, form, days, now);
      if (expired > 0) {
        deleted += expired;
        void deps.publishChanges();
        deps.logger.info({ formId: form.id, orgId: form.orgId, expired, days }, 'expired submissions deleted');
      }
    }
    if (forms.length < FORMS_PAGE) return deleted;
    after = forms[forms.length - 1]?.id ?? after;
  }
}
