import type { EventPublisher } from '@formgate/bus';
import { type DeliveryChannel, encodeEvent, Topics } from '@formgate/contracts';
import { type Clock, type Ids, type Logger, mapLimit } from '@formgate/kit';
import {
  type Delivery,
  isFinal,
  type NotificationStores,
  type PlannedSubmission,
  type SubmissionSettlement,
} from '../store/index.ts';
import { ALL_CHANNEL_KINDS } from './channel.ts';
import { type ForgetContentDeps, forgetContent } from './forget-content.ts';
import { DELIVERY_TUNING } from './tuning.ts';

export type SettleDeps = ForgetContentDeps & {
  stores: Pick<NotificationStores, 'log' | 'outbox' | 'views' | 'settlements'>;
  bus: EventPublisher;
  ids: Ids;
  clock: Clock;
  logger: Logger;
};

const iso = (ms: number) => new Date(ms).toISOString();
/** The latest of ISO times (compared as strings). */
const latest = (times: string[]) => [...times].sort().at(-1) as string;

/** Submissions settled at once by one call. */
const AT_ONCE = 4;

/**
 * The settling of a no-store form's submissions (`settings.storeContent: false`, issue 31). A submission is settled
 * once every consumer group recorded its planning (`recordPlanning`, written after its deliveries were claimed),
 * every delivery of it is final and every outcome event of those is published (`countPending`: nothing pending, no
 * open batch). Settling is, in order: `submission.settled` published (its id derived from the submission, its
 * `settledAt` from the log: the same event however often it is published), the content dropped as an erasure drops
 * it (`forget-content.ts`) without telling any endpoint, the record closed. Each step is idempotent and the record
 * stays open until the last one, so a process that stops anywhere leaves a record the sweep (`settle-sweep.ts`)
 * settles again; several instances at once publish the same event twice at worst.
 *
 * Held submissions are never planned (a released one is, then). Spam ones are settled like the others once their
 * deliveries (`submission.spam` webhooks) are done; forms then keeps only their metadata, so a later "not spam"
 * mark releases nothing to deliver.
 *
 * `planned` and `afterFinal` are the prompt triggers; a failure there is logged and left to the sweep. In one
 * process the settling of a submission is serialized, so triggers at once publish once.
 */
export function createSubmissionSettler(deps: SettleDeps) {
  const { log, outbox, settlements } = deps.stores;
  /** Per submission, the settling under way in this process: triggers at once run one after the other. */
  const running = new Map<string, Promise<unknown>>();

  const serialized = <T>(submissionId: string, fn: () => Promise<T>): Promise<T> => {
    const next = (running.get(submissionId) ?? Promise.resolve()).catch(() => {}).then(fn);
    running.set(submissionId, next);
    const forget = () => running.get(submissionId) === next && running.delete(submissionId);
    next.then(forget, forget);
    return next;
  };

  const publish = async (record: SubmissionSettlement, settledAt: string) => {
    const { submissionId, formId, orgId } = record;
    const value = encodeEvent(Topics.notificationsDelivery, {
      id: deps.ids.derived('submission-settled', submissionId),
      type: 'submission.settled',
      version: 1,
      occurredAt: settledAt,
      data: { submissionId, formId, orgId, settledAt },
    });
    await deps.bus.publish(Topics.notificationsDelivery, [{ key: orgId, value }]);
  };

  /** Settles an open record if it can be now; resolves with whether it did. Rejects when a step failed. */
  async function settleOpen(record: SubmissionSettlement): Promise<boolean> {
    if (!ALL_CHANNEL_KINDS.every((kind) => record.planned.includes(kind))) return false;
    const scope = { orgId: record.orgId };
    const deliveries = await log.listBySubmission(scope, record.submissionId);
    if (!deliveries.every((d) => isFinal(d.status))) return false;
    if ((await outbox.countPending(scope, record.submissionId)) > 0) return false;
    // When its last delivery became final (final deliveries are not written again), or its planning without any.
    const settledAt = latest([record.createdAt, ...deliveries.map((d) => d.updatedAt)]);
    await publish(record, settledAt);
    await forgetContent(deps, scope, record.submissionId, deliveries);
    await settlements.markSettled(record.submissionId, settledAt);
    return true;
  }

  /**
   * Settles the submission if it can be now, as its record stands when its turn comes; resolves with whether it is
   * settled (now or before: true; not recorded, or waiting: false). Rejects when a step failed: it stays open.
   */
  const settle = (submissionId: string): Promise<boolean> =>
    serialized(submissionId, async () => {
      const record = await settlements.get(submissionId);
      if (!record) return false;
      return record.settledAt !== null || settleOpen(record);
    });

  /** Runs `fn`; a failure is logged, and the sweep finds its open record later. */
  const logged = (submissionId: string, fn: () => Promise<unknown>) =>
    fn().then(
      () => undefined,
      (err: unknown) => deps.logger.warn({ err, submissionId }, 'settling a submission failed; the sweep retries it'),
    );

  return {
    settle,
    /**
     * A consumer group planned `submissions` for its channel `kinds` (its deliveries claimed or planned): records
     * it (rejects when that fails: the batch is handled again), then settles those that can be now (the last group
     * of a submission with nothing to deliver). A settled one planned again (a redelivered batch saved its copy
     * again) has its content dropped again.
     */
    async planned(submissions: PlannedSubmission[], kinds: readonly DeliveryChannel[]): Promise<void> {
      if (submissions.length === 0) return;
      const now = deps.clock.now().getTime();
      const at = { now: iso(now), checkAt: iso(now + DELIVERY_TUNING.settleGraceMs) };
      await settlements.recordPlanning(submissions, kinds, at);
      await mapLimit(submissions, AT_ONCE, ({ submissionId, orgId }) =>
        logged(submissionId, () =>
          serialized(submissionId, async () => {
            const record = await settlements.get(submissionId);
            if (record?.settledAt === null) return settleOpen(record);
            const scope = { orgId };
            if (record) await forgetContent(deps, scope, submissionId, await log.listBySubmission(scope, submissionId));
          }),
        ),
      );
    },
    /**
     * Outcomes of `deliveries` were published (and their batch closed, if any): the submissions of the final ones
     * that have an open record are settled if they can be now. Never rejects.
     */
    async afterFinal(deliveries: Delivery[]): Promise<void> {
      const submissions = new Set(deliveries.filter((d) => isFinal(d.status)).map((d) => d.submissionId));
      await mapLimit([...submissions], AT_ONCE, (submissionId) => logged(submissionId, () => settle(submissionId)));
    },
  };
}

export type SubmissionSettler = ReturnType<typeof createSubmissionSettler>;
