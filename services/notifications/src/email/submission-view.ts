import type { SubmissionFile, SubmissionReceived } from '@formgate/contracts';
import { cleanText, formatSize, formatTime, httpUrl, indent, singleLine, truncate } from './plain-text.ts';

/** A value longer than this many characters is cut, with a link to the whole submission. */
export const MAX_VALUE_LENGTH = 2_000;
/** Only this many fields are shown; the rest are behind the link to the submission. */
export const MAX_FIELDS = 100;
const MAX_NAME_LENGTH = 200;

/** What both parts of a notification show: cleaned, cut and linked, but not escaped (each part does its own). */
export interface SubmissionView {
  formName: string;
  receivedAt: string;
  origin?: string;
  referer?: string;
  fields: { name: string; value: string; omittedChars: number }[];
  omittedFields: number;
  files: { name: string; size: string; url: string }[];
  submissionUrl: string;
}

export interface SubmissionViewInput {
  form: { id: string; name: string; slug: string };
  submission: SubmissionReceived['data'];
  /** The dashboard's public base URL (`https://app.formgate.example`). */
  dashboardUrl: string;
  /** An expiring signed download link for a file of this submission. */
  fileLink: (file: SubmissionFile) => string;
}

/** The submission's page in the dashboard (`/dashboard/forms/{formSlug}/submissions/{submissionId}`). */
export function submissionUrl(dashboardUrl: string, formSlug: string, submissionId: string): string {
  const base = httpUrl(dashboardUrl, 'dashboardUrl').replace(/\/+$/, '');
  return `${base}/dashboard/forms/${encodeURIComponent(formSlug)}/submissions/${encodeURIComponent(submissionId)}`;
}

export function toSubmissionView({ form, submission, dashboardUrl, fileLink }: SubmissionViewInput): SubmissionView {
  const shown = submission.fields.slice(0, MAX_FIELDS);
  return {
    formName: singleLine(form.name, MAX_NAME_LENGTH),
    receivedAt: formatTime(submission.receivedAt),
    origin: submission.origin === undefined ? undefined : singleLine(submission.origin, 2_048),
    referer: submission.referer === undefined ? undefined : singleLine(submission.referer, 2_048),
    fields: shown.map((field) => {
      const { text, omitted } = truncate(cleanText(field.value), MAX_VALUE_LENGTH);
      return { name: singleLine(field.name, MAX_NAME_LENGTH) || '(no name)', value: text, omittedChars: omitted };
    }),
    omittedFields: submission.fields.length - shown.length,
    files: submission.files.map((file) => ({
      name: singleLine(file.filename, MAX_NAME_LENGTH) || '(no name)',
      size: formatSize(file.size),
      url: httpUrl(fileLink(file), 'fileLink(file)'),
    })),
    submissionUrl: submissionUrl(dashboardUrl, form.slug, submission.submissionId),
  };
}

/**
 * The plain-text part. Only our own lines start at the left margin: field and file names follow `* ` on one line,
 * and every line of a value is indented, so no value can pass for a line of the layout, a name or a link of ours.
 */
export function submissionText(view: SubmissionView): string {
  const lines = [`New submission to ${view.formName}`, '', `Received: ${view.receivedAt}`];
  if (view.origin !== undefined) lines.push(`Origin: ${view.origin}`);
  if (view.referer !== undefined) lines.push(`Referer: ${view.referer}`);
  lines.push(`Open it in Formgate: ${view.submissionUrl}`, '', 'Fields', '');
  for (const field of view.fields) {
    lines.push(`* ${field.name}`);
    if (field.value !== '') lines.push(indent(field.value));
    if (field.omittedChars > 0) lines.push(`    [cut: ${field.omittedChars} more characters, see the full submission]`);
  }
  if (view.fields.length === 0) lines.push('(no fields)');
  if (view.omittedFields > 0) lines.push('', `${view.omittedFields} more fields: see the full submission.`);
  if (view.files.length > 0) {
    lines.push('', 'Files (the links expire)', '');
    for (const file of view.files) lines.push(`* ${file.name} (${file.size})`, `    ${file.url}`);
  }
  lines.push('', `See the full submission: ${view.submissionUrl}`, '');
  return lines.join('\n');
}
