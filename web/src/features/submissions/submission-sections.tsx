import type { SpamReason } from '@formgate/contracts';
import { Section } from '../../components/panel.tsx';
import { Button, cx, Notice } from '../../components/ui.tsx';
import { formatBytes, formatDateTime } from '../../lib/format.ts';
import { SPAM_LAYER_LABELS } from '../spam/spam-settings.ts';
import { CONTENT_NOT_STORED } from './submission-list.tsx';
import { useDownloadFile } from './submissions.mutations.ts';
import type { Submission } from './submissions.queries.ts';

/** A submission's fields in its order, as text (a name may repeat). */
export function SubmissionFields({ fields }: { fields: Submission['fields'] }) {
  return (
    <Section title="Fields" level={3}>
      {fields.length === 0 ? <p className="text-sm text-zinc-600 dark:text-zinc-400">No fields.</p> : null}
      <dl className="divide-y divide-zinc-200 rounded-md border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
        {fields.map((field, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a name may repeat; the order is the submission's
          <div key={i} className="grid gap-1 px-3 py-2 sm:grid-cols-[12rem_1fr] sm:gap-3">
            <dt className="text-sm font-medium break-words text-zinc-700 dark:text-zinc-300">{field.name}</dt>
            <dd className="text-sm break-words whitespace-pre-wrap">{field.value}</dd>
          </div>
        ))}
      </dl>
    </Section>
  );
}

/**
 * In place of the fields and files of a submission that kept only its metadata (a no-store form's, issue 31, once
 * every delivery was done).
 */
export function ContentNotStored() {
  return (
    <Section title="Fields" level={3}>
      <Notice>{CONTENT_NOT_STORED}</Notice>
    </Section>
  );
}

/** What the malware scan says of a file that cannot be downloaded (now or ever); null when it can. */
function scanNotice(scan: Submission['files'][number]['scan']): string | null {
  switch (scan?.status) {
    case 'pending':
      return 'Being scanned for malware — downloadable once it is found clean.';
    case 'infected':
      return `Quarantined: the malware scan found ${scan.detail ?? 'malware'}. It cannot be downloaded.`;
    case 'failed':
      return `Quarantined: the malware scan could not check it (${scan.detail ?? 'no reason given'}). It cannot be downloaded.`;
    default:
      return null;
  }
}

/** Its uploaded files, each with a download button, or why it cannot be downloaded (the malware scan). */
export function SubmissionFiles({ formId, submission: s }: { formId: string; submission: Submission }) {
  return (
    <Section title="Files" level={3}>
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
            {scanNotice(file.scan) === null ? (
              <DownloadButton formId={formId} submissionId={s.id} fileId={file.blobKey} filename={file.filename} />
            ) : (
              <span
                className={cx(
                  'text-xs',
                  file.scan?.status === 'pending'
                    ? 'text-zinc-600 dark:text-zinc-400'
                    : 'font-medium text-red-800 dark:text-red-300',
                )}
              >
                {scanNotice(file.scan)}
              </span>
            )}
          </li>
        ))}
      </ul>
    </Section>
  );
}

/** When it arrived, from where, whether it is spam, and its id. */
export function SubmissionDetails({ submission: s }: { submission: Submission }) {
  const notRecorded = s.contentDropped ? 'Not stored' : 'Not recorded';
  return (
    <Section title="Details" level={3}>
      <dl className="grid gap-x-3 gap-y-1 text-sm sm:grid-cols-[12rem_1fr]">
        <dt className="text-zinc-600 dark:text-zinc-400">Received</dt>
        <dd>
          <time dateTime={s.createdAt}>{formatDateTime(s.createdAt)}</time>
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Origin</dt>
        <dd className="break-all">{s.origin ?? notRecorded}</dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Referer</dt>
        <dd className="break-all">{s.referer ?? notRecorded}</dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Spam</dt>
        <dd>{s.spam ? 'Yes' : 'No'}</dd>
        <dt className="text-zinc-600 dark:text-zinc-400">ID</dt>
        <dd className="break-all font-mono text-xs">{s.id}</dd>
      </dl>
    </Section>
  );
}

/**
 * Why ingest flagged it (issue 14): each reason's layer, what it found (as text: a detail may quote a matched word
 * from the submission) and its rule; "shadow" marks what a layer in shadow mode would have done, not counted.
 */
export function SpamReasons({ reasons, spam }: { reasons: SpamReason[]; spam: boolean }) {
  const acted = reasons.some((r) => !r.shadow);
  return (
    <Section title="Spam checks" level={3} id="spam-reasons-heading">
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
    </Section>
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
