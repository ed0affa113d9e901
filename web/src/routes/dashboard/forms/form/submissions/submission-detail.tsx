import type { SpamReason } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { ConfirmDialog } from '../../../../../components/confirm-dialog.tsx';
import { Button, Notice } from '../../../../../components/ui.tsx';
import {
  useDeleteSubmission,
  useDownloadFile,
  useMarkSubmission,
} from '../../../../../features/forms/submissions.mutations.ts';
import { type Submission, submissionQuery } from '../../../../../features/forms/submissions.queries.ts';
import { useCan } from '../../../../../features/organization/use-can.ts';
import { SPAM_LAYER_LABELS } from '../../../../../features/spam/spam-settings.ts';
import { describeError, isApiError } from '../../../../../lib/api.ts';
import { formatBytes, formatDateTime } from '../../../../../lib/format.ts';
import { useForm } from '../form-layout.tsx';
import { DeliveriesSection } from './submission-deliveries.tsx';
import { Badge } from './submissions-layout.tsx';

/**
 * `/dashboard/forms/{formSlug}/submissions/{id}`: every field and file of one submission. Everything in it came
 * from a stranger: it is rendered as text only — no HTML, no value as a link or an attribute name.
 */
export function Component() {
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
  const navigate = useNavigate();
  const { search } = useLocation();
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
  const mark = useMarkSubmission(formId, s.id);
  const remove = useDeleteSubmission(formId, s.id, {
    onSuccess: () => navigate({ pathname: '..', search }, { relative: 'path', replace: true }),
  });

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
          </div>
        </div>
        {canManage ? (
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
              trigger={<Button variant="danger">Delete</Button>}
              title="Delete this submission?"
              description="Its fields and files are deleted for good."
              confirmLabel="Delete"
              pending={remove.isPending}
              onConfirm={() => remove.mutate()}
            />
          </div>
        ) : null}
      </header>
      {s.held ? (
        <Notice>
          Held: the organization was over its plan's quota when it arrived; it is not notified until released.
        </Notice>
      ) : null}

      {s.spamReasons.length > 0 ? <SpamReasons reasons={s.spamReasons} spam={s.spam} /> : null}

      <section aria-labelledby="fields-heading" className="flex flex-col gap-2">
        <h3 id="fields-heading" className="font-semibold">
          Fields
        </h3>
        {s.fields.length === 0 ? <p className="text-sm text-zinc-600 dark:text-zinc-400">No fields.</p> : null}
        <dl className="divide-y divide-zinc-200 rounded-md border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {s.fields.map((field, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a name may repeat; the order is the submission's
            <div key={i} className="grid gap-1 px-3 py-2 sm:grid-cols-[12rem_1fr] sm:gap-3">
              <dt className="text-sm font-medium break-words text-zinc-700 dark:text-zinc-300">{field.name}</dt>
              <dd className="text-sm break-words whitespace-pre-wrap">{field.value}</dd>
            </div>
          ))}
        </dl>
      </section>

      {s.files.length > 0 ? (
        <section aria-labelledby="files-heading" className="flex flex-col gap-2">
          <h3 id="files-heading" className="font-semibold">
            Files
          </h3>
          <ul className="flex flex-col gap-2">
            {s.files.map((file) => (
              <li
                key={file.blobKey}
                className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-zinc-200 px-3 py-2 dark:border-zinc-800"
              >
                <span className="flex min-w-0 flex-col">
                  <span className="text-sm font-medium break-all">{file.filename}</span>
                  <span className="text-xs text-zinc-600 dark:text-zinc-400">
                    {file.field} · {file.contentType} · {formatBytes(file.size)}
                  </span>
                </span>
                <DownloadButton formId={formId} submissionId={s.id} fileId={file.blobKey} filename={file.filename} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section aria-labelledby="details-heading" className="flex flex-col gap-2">
        <h3 id="details-heading" className="font-semibold">
          Details
        </h3>
        <dl className="grid gap-x-3 gap-y-1 text-sm sm:grid-cols-[12rem_1fr]">
          <dt className="text-zinc-600 dark:text-zinc-400">Received</dt>
          <dd>
            <time dateTime={s.createdAt}>{formatDateTime(s.createdAt)}</time>
          </dd>
          <dt className="text-zinc-600 dark:text-zinc-400">Origin</dt>
          <dd className="break-all">{s.origin ?? 'Not recorded'}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">Referer</dt>
          <dd className="break-all">{s.referer ?? 'Not recorded'}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">Spam</dt>
          <dd>{s.spam ? 'Yes' : 'No'}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">ID</dt>
          <dd className="break-all font-mono text-xs">{s.id}</dd>
        </dl>
      </section>

      <DeliveriesSection formId={formId} submissionId={s.id} spam={s.spam} held={s.held} canManage={canManage} />
    </article>
  );
}

/**
 * Why ingest flagged it (issue 14): each reason's layer, what it found (as text: a detail may quote a matched word
 * from the submission) and its rule; "shadow" marks what a layer in shadow mode would have done, not counted.
 */
function SpamReasons({ reasons, spam }: { reasons: SpamReason[]; spam: boolean }) {
  const acted = reasons.some((r) => !r.shadow);
  return (
    <section aria-labelledby="spam-reasons-heading" className="flex flex-col gap-2">
      <h3 id="spam-reasons-heading" className="font-semibold">
        Spam checks
      </h3>
      {!spam && acted ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Marked as not spam since these were recorded.</p>
      ) : null}
      <ul aria-labelledby="spam-reasons-heading" className="flex flex-col gap-2">
        {reasons.map((reason, i) => (
          <li
            // biome-ignore lint/suspicious/noArrayIndexKey: reasons may repeat; the order is ingest's
            key={i}
            className="flex flex-col gap-0.5 rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800"
          >
            <span className="flex flex-wrap items-center gap-2">
              <span className="font-medium">{SPAM_LAYER_LABELS[reason.layer] ?? reason.layer}</span>
              {reason.shadow ? (
                <span
                  title="Shadow mode: recorded only, it did not count"
                  className="rounded bg-zinc-200 px-1.5 py-0.5 text-xs font-medium text-zinc-800 dark:bg-zinc-700 dark:text-zinc-100"
                >
                  shadow
                </span>
              ) : null}
              <code className="text-xs text-zinc-600 dark:text-zinc-400">{reason.rule}</code>
            </span>
            <span className="break-words">{reason.detail}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Asks for a short-lived link to the file, then opens it (the server answers it as an attachment). */
function DownloadButton(props: { formId: string; submissionId: string; fileId: string; filename: string }) {
  const link = useDownloadFile(props.formId, props.submissionId, props.fileId);
  return (
    <Button
      variant="secondary"
      className="px-2.5 py-1 text-xs"
      aria-label={`Download ${props.filename}`}
      disabled={link.isPending}
      onClick={() => link.mutate()}
    >
      {link.isPending ? 'Preparing…' : 'Download'}
    </Button>
  );
}
