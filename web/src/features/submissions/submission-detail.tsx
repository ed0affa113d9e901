import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Button, Notice } from '../../components/ui.tsx';
import { describeError, isApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useForm } from '../forms/form-layout.tsx';
import { DeliveriesSection } from '../notifications/submission-deliveries.tsx';
import { useCan } from '../organization/use-can.ts';
import { Badge, hasQuarantinedFile } from './submission-list.tsx';
import {
  ContentNotStored,
  SpamReasons,
  SubmissionDetails,
  SubmissionFields,
  SubmissionFiles,
} from './submission-sections.tsx';
import { useDeleteSubmission, useMarkSubmission } from './submissions.mutations.ts';
import { type Submission, submissionQuery } from './submissions.queries.ts';

/**
 * `/dashboard/forms/{formSlug}/submissions/{id}`: every field and file of one submission (or, once a no-store form
 * kept only its metadata, a note saying so). Everything in it came from a stranger: it is rendered as text only —
 * no HTML, no value as a link or an attribute name.
 */
export function SubmissionDetailScreen() {
  const form = useForm();
  const { submissionId = '' } = useParams();
  const submission = useQuery(submissionQuery(form.id, submissionId));
  if (submission.isPending) return <p role="status">Loading submission…</p>;
  if (submission.isError) {
    const gone = isApiError(submission.error) && submission.error.status === 404;
    return (
      <Notice tone="error">
        {gone ? 'This submission does not exist (any more).' : describeError(submission.error)}
      </Notice>
    );
  }
  return <SubmissionView formId={form.id} submission={submission.data} />;
}

function SubmissionView({ formId, submission: s }: { formId: string; submission: Submission }) {
  const canManage = useCan().can({ form: ['update'] });
  // Stacked under the list (small screens), an opened submission would be out of sight: bring it into view.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const el = heading.current;
    if (!el || s.id === '') return;
    const { top } = el.getBoundingClientRect();
    if (top < window.innerHeight / 2 && top >= 0) return;
    el.scrollIntoView?.({ block: 'start' });
    el.focus({ preventScroll: true });
  }, [s.id]);

  return (
    <article aria-labelledby="submission-heading" className="flex flex-col gap-5">
      <header className="flex flex-wrap items-start justify-between gap-3">
        <div className="flex flex-col gap-1">
          <h2 id="submission-heading" ref={heading} tabIndex={-1} className="scroll-mt-20 text-lg font-semibold">
            Submission of <time dateTime={s.createdAt}>{formatDateTime(s.createdAt)}</time>
          </h2>
          <div className="flex flex-wrap gap-1.5">
            {s.spam ? <Badge tone="spam">Spam</Badge> : null}
            {s.held ? <Badge tone="held">Held</Badge> : null}
            {hasQuarantinedFile(s) ? <Badge tone="danger">Quarantined file</Badge> : null}
          </div>
        </div>
        {canManage ? <SubmissionActions formId={formId} submission={s} /> : null}
      </header>
      {s.held ? (
        <Notice>
          Held: the organization was over its plan's quota when it arrived; it is not notified until released.
        </Notice>
      ) : null}

      {s.spamReasons.length > 0 ? <SpamReasons reasons={s.spamReasons} spam={s.spam} /> : null}

      {s.contentDropped ? (
        <ContentNotStored />
      ) : (
        <>
          <SubmissionFields fields={s.fields} />
          {s.files.length > 0 ? <SubmissionFiles formId={formId} submission={s} /> : null}
        </>
      )}
      <SubmissionDetails submission={s} />

      <DeliveriesSection formId={formId} submissionId={s.id} spam={s.spam} held={s.held} canManage={canManage} />
    </article>
  );
}

/** "Not spam" (confirmed) or "Mark spam", and deleting it (confirmed), for those who may change the form. */
function SubmissionActions({ formId, submission: s }: { formId: string; submission: Submission }) {
  const navigate = useNavigate();
  const { search } = useLocation();
  const mark = useMarkSubmission(formId, s.id);
  const remove = useDeleteSubmission(formId, s.id, {
    onSuccess: () => navigate({ pathname: '..', search }, { relative: 'path', replace: true }),
  });
  return (
    <div className="flex flex-wrap gap-2">
      {s.spam ? (
        <ConfirmDialog
          trigger={
            <Button variant="secondary" disabled={mark.isPending}>
              Not spam
            </Button>
          }
          title="Release this submission as not spam?"
          description={
            s.held
              ? 'It stays held until the organization is back under its quota; then it is notified and counted.'
              : 'It is then notified (emails and webhooks, as if it had just arrived) and counted in the plan’s usage, once.'
          }
          confirmLabel="Not spam"
          pending={mark.isPending}
          onConfirm={() => mark.mutate(false)}
        />
      ) : (
        <Button variant="secondary" disabled={mark.isPending} onClick={() => mark.mutate(true)}>
          Mark spam
        </Button>
      )}
      <ConfirmDialog
        trigger="Delete"
        title="Delete this submission?"
        description="Its fields and files are deleted for good."
        confirmLabel="Delete"
        pending={remove.isPending}
        onConfirm={() => remove.mutate()}
      />
    </div>
  );
}
