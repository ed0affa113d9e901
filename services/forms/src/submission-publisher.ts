import type { EventPublisher } from '@formgate/bus';
import { encodeEvent, type TopicEvent, Topics } from '@formgate/contracts';
import type { BlobStore } from '@formgate/store';
import type { SubmissionChange, SubmissionRecord } from './store/records.ts';
import type { SubmissionChanges } from './store/submission-changes.ts';
import { deleteBlobs } from './use-cases/delete-form.ts';

type Deps = { changes: SubmissionChanges; bus: EventPublisher; blobs: BlobStore };

/** A submission as `submission.received` carries it (a release, or a release from spam). */
function receivedData(s: SubmissionRecord) {
  return {
    submissionId: s.id,
    formId: s.formId,
    orgId: s.orgId,
    receivedAt: s.createdAt,
    fields: s.fields,
    files: s.files,
    meta: s.meta ?? {},
    spam: s.spam,
    held: false as const,
    ...(s.origin !== undefined ? { origin: s.origin } : {}),
    ...(s.referer !== undefined ? { referer: s.referer } : {}),
  };
}

function eventOf(change: SubmissionChange): TopicEvent<typeof Topics.formsSubmission> {
  const data = {
    submissionId: change.submissionId,
    formId: change.formId,
    orgId: change.orgId,
    receivedAt: change.receivedAt,
    wasSpam: change.wasSpam,
  };
  const base = { id: change.id, version: 1 as const, occurredAt: change.occurredAt };
  if (change.action === 'release') {
    const s = change.submission;
    if (!s) throw new Error(`release ${change.id} has no submission`);
    return {
      ...base,
      type: 'submission.released',
      data: { ...receivedData(s), releasedAt: change.occurredAt },
    };
  }
  if (change.action === 'erase') {
    const erased = {
      ...data,
      ...(change.erasure !== undefined ? { erasure: change.erasure } : {}),
      ...(change.expired ? { expired: true as const } : {}),
      wasHeld: change.wasHeld === true,
    };
    return { ...base, type: 'submission.deleted', data: erased };
  }
  return change.action === 'delete'
    ? { ...base, type: 'submission.deleted', data }
    : {
        ...base,
        type: 'submission.spam-marked',
        data: {
          ...data,
          spam: change.action === 'spam',
          // Released from spam (issue 14, ADR 42): notifications and billing take it as just received.
          ...(change.submission ? { submission: receivedData(change.submission) } : {}),
        },
      };
}

/**
 * One pass of the `forms.submission` outbox relay: the files of deleted submissions are deleted, then every
 * change is published (keyed by form id, in the order made) and forgotten. A crash in between publishes a change
 * again under the same event id, which consumers deduplicate on.
 */
export async function publishSubmissionChanges(deps: Deps): Promise<number> {
  const pending = await deps.changes.listUnpublishedSubmissionChanges(200);
  if (pending.length === 0) return 0;
  await deleteBlobs(
    deps.blobs,
    pending.flatMap((c) => c.blobKeys),
  );
  await deps.bus.publish(
    Topics.formsSubmission,
    pending.map((change) => ({ key: change.formId, value: encodeEvent(Topics.formsSubmission, eventOf(change)) })),
  );
  for (const change of pending) await deps.changes.markSubmissionChangePublished(change.id);
  return pending.length;
}
