import { type SpamVerdict, type SubmissionField, UPLOADS_FIELD } from '@formgate/contracts';
import { TIME_TRAP_FIELD } from './spam/time-trap.ts';

const REDIRECT = new Set(['_next', '_redirect', 'redirect', 'redirectTo', 'redirect_url']);
const ERROR_REDIRECT = new Set(['_error']);
const SUBJECT = new Set(['_subject', 'subject', '_email.subject']);
const REPLY_TO = new Set(['_replyto', 'replyto', '_email.replyto']);
const CC = new Set(['_cc', 'ccemail']);
const HONEYPOT = new Set(['_gotcha', '_honey', '_honeypot', 'botcheck', 'bot-field']);
const CAPTCHA = new Set(['g-recaptcha-response', 'h-captcha-response', 'cf-turnstile-response', 'altcha']);
/** Other fields of the spam layers (the time-trap's signed timestamp). */
const SPAM_RESERVED = new Set([TIME_TRAP_FIELD]);
const FORMAT = new Set(['_format', '_template']);
const LANGUAGE = new Set(['_language']);
const IGNORED = new Set(['form-name']);

const EMAIL = /^[^\s@<>()[\]\\,;:"]{1,64}@[^\s@<>()[\]\\,;:"]{1,255}\.[^\s@<>()[\]\\,;:"]{1,63}$/;
/** Control characters (U+0085 NEL and ESC are not in `\s`) never belong in an address bound for a mail header. */
const CONTROL = /\p{Cc}/u;
const isEmail = (s: string) => s.length <= 254 && EMAIL.test(s) && !CONTROL.test(s);
/** Header-bound text: no CR, LF or other line breaks (header injection), trimmed and bounded. */
const headerSafe = (s: string, max: number) =>
  s
    .replace(/[\r\n\u0085\u2028\u2029\t\v\f]+/g, ' ')
    .trim()
    .slice(0, max);

export interface SplitFields {
  /** The submitter's data, in order, without reserved fields. */
  data: SubmissionField[];
  meta: { subject?: string; replyTo?: string; cc?: string[]; format?: string; language?: string };
  redirect?: string;
  errorRedirect?: string;
  captchaTokens: Record<string, string>;
  /** Values of the other spam layers' reserved fields, by name. */
  reserved: Record<string, string>;
  /** `_uploads`: the token of the submission's direct uploads (issue 33). */
  uploads?: string;
  /** The honeypot's verdict (the other layers add theirs in `spam/evaluate.ts`). */
  spam: SpamVerdict;
}

/** Separates reserved fields (every competitor's alias) from data and applies the honeypot rule. */
export function splitReservedFields(fields: SubmissionField[], customHoneypot: string | null): SplitFields {
  const out: SplitFields = {
    data: [],
    meta: {},
    captchaTokens: {},
    reserved: {},
    spam: { isSpam: false, reasons: [] },
  };
  let emailField: string | undefined;
  for (const { name, value } of fields) {
    if (HONEYPOT.has(name) || name === customHoneypot) {
      if (value.trim() !== '') {
        const reason = {
          layer: 'honeypot',
          rule: 'field-filled',
          detail: `honeypot field ${name} was filled`,
        } as const;
        out.spam = { isSpam: true, reasons: [...out.spam.reasons, reason] };
      }
    } else if (REDIRECT.has(name)) out.redirect ??= value;
    else if (ERROR_REDIRECT.has(name)) out.errorRedirect ??= value;
    else if (SUBJECT.has(name)) out.meta.subject ??= headerSafe(value, 200);
    else if (REPLY_TO.has(name)) {
      const v = value.trim();
      if (isEmail(v)) out.meta.replyTo ??= v;
    } else if (CC.has(name)) {
      const list = value
        .split(/[,;\s]+/)
        .filter(isEmail)
        .slice(0, 10);
      if (list.length) out.meta.cc = list;
    } else if (CAPTCHA.has(name)) out.captchaTokens[name] = value;
    else if (SPAM_RESERVED.has(name)) out.reserved[name] ??= value;
    else if (name === UPLOADS_FIELD) out.uploads ??= value;
    else if (FORMAT.has(name)) out.meta.format ??= headerSafe(value, 50);
    else if (LANGUAGE.has(name)) out.meta.language ??= headerSafe(value, 20);
    else if (!IGNORED.has(name)) {
      if (name === 'email' && emailField === undefined) emailField = value.trim();
      out.data.push({ name, value });
    }
  }
  if (!out.meta.replyTo && emailField && isEmail(emailField)) out.meta.replyTo = emailField;
  return out;
}
