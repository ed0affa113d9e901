import type { IncomingMessage } from 'node:http';
import type { Form, SpamLayer as SpamLayerName, SpamReason, SpamSettings, SubmissionField } from '@formgate/contracts';
import type { AppError } from '@formgate/kit';

/**
 * What a spam layer sees of one request (issue 14). `before-body` layers run once the form is known and before the
 * body is read (rate limits, origins: a refusal costs no parsing); `after-body` layers see the fields too.
 */
export interface SpamRequest {
  form: Form;
  /** The settings in force for this form (`resolveSpamSettings(org defaults, form's own)`). */
  settings: SpamSettings;
  req: IncomingMessage;
  /** The client's address as ingest trusts it (the gateway's `X-Forwarded-For` handling in distributed mode). */
  clientIp: string;
  now: Date;
}

export interface SpamSubmission extends SpamRequest {
  /** The submitter's data fields (reserved fields removed). */
  fields: SubmissionField[];
  /** Values of the captcha fields by name (`cf-turnstile-response`, `h-captcha-response`, `g-recaptcha-response`, `altcha`). */
  captchaTokens: Record<string, string>;
  /** Values of other reserved spam fields by name (e.g. the time-trap's signed timestamp). */
  reserved: Record<string, string>;
}

/**
 * A layer's finding: nothing, a flag (stored as spam with these reasons), or a block (nothing stored; `error` is
 * answered: 403 `BLOCKED` or 429 `RATE_LIMITED` with `Retry-After`). In shadow mode the orchestrator records a flag's
 * or a block's reasons with `shadow: true` and lets the submission through.
 */
export type LayerFinding =
  | { verdict: 'pass' }
  | { verdict: 'flag'; reasons: SpamReason[] }
  | { verdict: 'block'; reasons: SpamReason[]; error: AppError };

export interface BeforeBodyLayer {
  readonly name: SpamLayerName;
  readonly phase: 'before-body';
  check(request: SpamRequest): LayerFinding | Promise<LayerFinding>;
}

export interface AfterBodyLayer {
  readonly name: SpamLayerName;
  readonly phase: 'after-body';
  check(submission: SpamSubmission): LayerFinding | Promise<LayerFinding>;
}

export type SpamLayer = BeforeBodyLayer | AfterBodyLayer;
