import type { EventPublisher } from '@formgate/bus';
import { encodeEvent, Topics } from '@formgate/contracts';
import { type Clock, createRelayLoop, type Ids, type Logger } from '@formgate/kit';
import type { BlobStore } from '@formgate/store';
import type { Erasures } from './store/erasures.ts';
import type { FormRepository } from './store/form-repository.ts';
import type { SubmissionChanges } from './store/submission-changes.ts';
import { publishSubmissionChanges } from './submission-publisher.ts';
import { purgeDeletedForm } from './use-cases/delete-form.ts';

type PublisherDeps = {
  forms: FormRepository;
  changes: SubmissionChanges;
  erasures: Erasures;
  bus: EventPublisher;
  blobs: BlobStore;
  clock: Clock;
  ids: Ids;
  logger: Logger;
};

async function publishUpserts(deps: PublisherDeps): Promise<number> {
  const forms = await deps.forms.listUnpublishedForms(200);
  if (forms.length === 0) return 0;
  await deps.bus.publish(
    Topics.formsForm,
    forms.map((form) => ({
      key: form.id,
      value: encodeEvent(Topics.formsForm, {
        id: deps.ids.next(),
        type: 'form.upserted',
        version: 1,
        occurredAt: form.updatedAt,
        data: form,
      }),
    })),
  );
  for (const form of forms) await deps.forms.markFormPublished(form.id, form.version);
  return forms.length;
}

async function publishDeletions(deps: PublisherDeps): Promise<number> {
  const deletions = await deps.forms.listUnpublishedDeletions(200);
  if (deletions.length === 0) return 0;
  const occurredAt = deps.clock.now().toISOString();
  for (const { formId } of deletions) await purgeDeletedForm(deps, formId);
  await deps.bus.publish(
    Topics.formsForm,
    deletions.map(({ formId, orgId, key, version }) => ({
      key: formId,
      value: encodeEvent(Topics.formsForm, {
        id: deps.ids.next(),
        type: 'form.deleted',
        version: 1,
        occurredAt,
        data: { formId, orgId, key, version },
      }),
    })),
  );
  for (const d of deletions) await deps.forms.markDeletionPublished(d.formId);
  return deletions.length;
}

/** The audit entries of erasures (`erasure.completed` on `orgs.organization`, keyed by organization). */
async function publishErasureAudits(deps: PublisherDeps): Promise<number> {
  const receipts = await deps.erasures.listUnaudited(100);
  if (receipts.length === 0) return 0;
  await deps.bus.publish(
    Topics.orgsOrganization,
    receipts.map(({ receipt: r }) => ({
      key: r.orgId,
      value: encodeEvent(Topics.orgsOrganization, {
        id: r.id,
        type: 'erasure.completed',
        version: 1,
        occurredAt: r.erasedAt,
        data: {
          orgId: r.orgId,
          actor: { userId: r.requestedBy.id, email: null },
          erasureId: r.id,
          addressKey: r.addressKey,
          count: String(r.count),
        },
      }),
    })),
  );
  for (const { receipt } of receipts) await deps.erasures.markAudited(receipt.id);
  return receipts.length;
}

/**
 * The outbox relay for `forms.form` and `forms.submission`: every form version stored but not yet confirmed
 * published is published as a full snapshot, then marked; every form deleted (through the API or with its
 * organization) is purged — the form if still there, its files, submissions and counters — then published as
 * `form.deleted`, then forgotten; every submission change is published (`submission-publisher.ts`). A crash in
 * between does it again (views keep the highest version, purges are idempotent, events keep their ids), so a
 * change is never lost even though the store and the log are not one transaction. Erasures' audit entries go to
 * `orgs.organization` (`erasure.completed`), under the erasure's id, which the audit log keys its entries by.
 */
export function createFormPublisher(deps: PublisherDeps) {
  const loop = createRelayLoop({
    pass: async () =>
      (await publishUpserts(deps)) +
        (await publishDeletions(deps)) +
        (await publishSubmissionChanges(deps)) +
        (await publishErasureAudits(deps)) >
      0,
    intervalMs: 5_000,
    onError: (err) => deps.logger.warn({ err }, 'form publish failed; will retry'),
  });
  return { kick: loop.kick, start: loop.start, stop: loop.stop };
}
