import { createHash } from 'node:crypto';
import type { SubmissionReceived } from '@formgate/contracts';
import { z } from 'zod';
import { singleLine } from './plain-text.ts';

export const MAX_SUBJECT_LENGTH = 200;
export const DEFAULT_SUBJECT_TEMPLATE = 'New submission to {{form}}';

/** Why an email about a submission is sent; part of its `Message-ID` and of the delivery's `purpose`. */
export type SubmissionMailPurpose = 'notification' | 'autoresponse';

/**
 * The subject from a form's template: `{{form}}` → the form's name, `{{subject}}` → the submission's `_subject`
 * (empty when it has none), in one pass, so `{{form}}` inside a value stays text. One line, at most 200 characters;
 * the default template when the template is null or the result is empty.
 */
export function renderSubject(template: string | null, values: { form: string; subject?: string }): string {
  const fill = (source: string) =>
    source.replace(/\{\{\s*(form|subject)\s*\}\}/g, (_match, key: 'form' | 'subject') => values[key] ?? '');
  const subject = singleLine(fill(template ?? DEFAULT_SUBJECT_TEMPLATE), MAX_SUBJECT_LENGTH);
  return subject || singleLine(fill(DEFAULT_SUBJECT_TEMPLATE), MAX_SUBJECT_LENGTH);
}

const AddressSchema = z.email().max(320);

/**
 * `value` when it is exactly one plain address (`a@b.example`: no display name, no comment, no list, no line break
 * or other control character, at most 320 characters); undefined otherwise.
 */
export function singleAddress(value: string | undefined): string | undefined {
  if (value === undefined || /[\p{Cc},;<>"]/u.test(value)) return undefined;
  const parsed = AddressSchema.safeParse(value.trim());
  return parsed.success ? parsed.data : undefined;
}

/**
 * The submitter's address, for `Reply-To` and the autoresponse: the `_replyto` value, else the first field named
 * `email`, whichever is first a single valid address; undefined when neither is.
 */
export function submitterAddress(submission: Pick<SubmissionReceived['data'], 'meta' | 'fields'>): string | undefined {
  const emailField = submission.fields.find((field) => field.name.toLowerCase() === 'email');
  return singleAddress(submission.meta.replyTo) ?? singleAddress(emailField?.value);
}

/**
 * The same `Message-ID` for the same (submission, purpose, recipient), whatever the attempt, and a different one for
 * anything else: `<{128 bits of sha256, hex}@{domain}>`. Addresses compare case-insensitively.
 */
export function submissionMessageId(input: {
  submissionId: string;
  purpose: SubmissionMailPurpose;
  recipient: string;
  domain: string;
  /** A resend's delivery id: a resent mail is a new message, which mail clients must not drop as a duplicate. */
  resendId?: string;
}): string {
  const parts = [input.submissionId, input.purpose, input.recipient.trim().toLowerCase()];
  const key = JSON.stringify(input.resendId === undefined ? parts : [...parts, input.resendId]);
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 32);
  return `<${hash}@${messageIdDomain(input.domain)}>`;
}

function messageIdDomain(domain: string): string {
  const host = domain.trim().toLowerCase();
  if (!/^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/.test(host)) throw new TypeError('the Message-ID domain must be a host name');
  return host;
}
