import type { IncomingMessage } from 'node:http';
import type { EventPublisher } from '@formgate/bus';
import {
  billingPeriodOf,
  encodeEvent,
  type Form,
  resolveSpamSettings,
  type SpamSettings,
  type SpamSettingsPatch,
  type SubmissionReceived,
  Topics,
} from '@formgate/contracts';
import { AppError, type Clock, type Ids, type IngestStage } from '@formgate/kit';
import type { BlobStore } from '@formgate/store';
import { IngestErrors } from './ingest-errors.ts';
import type { IngestLimits } from './limits.ts';
import { parseJson } from './parse/parse-json.ts';
import { parseMultipart } from './parse/parse-multipart.ts';
import { parseUrlencoded } from './parse/parse-urlencoded.ts';
import type { ParsedBody } from './parse/parsed-body.ts';
import { readBody } from './parse/read-body.ts';
import { defaultNext, safeRedirect } from './redirects.ts';
import { requestSource } from './request-source.ts';
import { splitReservedFields } from './reserved-fields.ts';
import type { SpamEvaluator } from './spam/evaluate.ts';
import { baseType, checkAllowedType } from './uploads/file-rules.ts';
import type { UploadTokens } from './uploads/upload-tokens.ts';
import {
  attachUploads,
  checkStorageLeft,
  checkStoredType,
  type DirectUploadTarget,
  type OrgFilePlans,
  rulesFor,
} from './uploads/uploaded-files.ts';
import type { FormsView } from './views/forms-view.ts';
import type { OrgSettingsView } from './views/org-settings-view.ts';
import type { QuotaView } from './views/quota-view.ts';

export interface ReceiveDeps {
  bus: EventPublisher;
  blobs: BlobStore;
  clock: Clock;
  ids: Ids;
  limits: IngestLimits;
  forms: FormsView;
  quota: QuotaView;
  /** Organizations' spam defaults (`orgs.settings`). */
  orgSettings: OrgSettingsView;
  /** The spam layers (issue 14), run before and after the body is read. */
  spam: SpamEvaluator;
  /** The client's address as ingest trusts it (`client-ip.ts`). */
  clientIp: (req: IncomingMessage) => string;
  /** Absolute base URL of the public endpoint, for the default thank-you page. */
  publicBaseUrl: string;
  /** Signs and opens the tokens of direct uploads (issue 33). */
  uploadTokens: UploadTokens;
  /** Presigned PUT URLs of the blob store (S3); absent: files are PUT through ingest itself. */
  directUploads?: DirectUploadTarget | undefined;
  /** Each organization's plan's `maxFileMb` (`null`: no plan limit); absent: no plan limits (tests of other things). */
  plans?: OrgFilePlans;
  /** Where an accepted submission's time per stage goes (`Metrics.observeIngestStage`); unset: not measured. */
  observeStage?: (stage: IngestStage, seconds: number) => void;
}

export interface Accepted {
  id: string;
  /** Where the submitter goes next (303 target, or `next` in the JSON answer). */
  next: string;
  /** Stored flagged as spam (the honeypot or a spam layer). */
  spam: boolean;
}

export type Outcome = { accepted: Accepted } | { rejected: AppError; errorRedirect: string | null };

const IDEMPOTENCY_KEY = /^[\x21-\x7e]+$/;

/** The enabled form behind a public key; throws 404 / 410 / 403 otherwise. */
export function findForm(deps: Pick<ReceiveDeps, 'forms'>, key: string): Form {
  const found = deps.forms.lookup(key);
  if (found === undefined) throw IngestErrors.formNotFound();
  if (found === 'deleted') throw IngestErrors.formDeleted();
  if (!found.settings.enabled) throw IngestErrors.inactive();
  return found;
}

export function idempotencyKey(req: IncomingMessage, limits: IngestLimits): string | undefined {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw.length > limits.maxIdempotencyKeyLength || !IDEMPOTENCY_KEY.test(raw)) {
    throw IngestErrors.badIdempotencyKey(limits.maxIdempotencyKeyLength);
  }
  return raw;
}

async function parseBody(req: IncomingMessage, deps: ReceiveDeps, form: Form): Promise<ParsedBody> {
  const [rawType = '', ...params] = (req.headers['content-type'] ?? '').split(';');
  const type = rawType.trim().toLowerCase();
  const charset = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('charset='));
  if (type === 'multipart/form-data') {
    const { maxFileBytes } = rulesFor(deps, form);
    return parseMultipart(req, { ...deps.limits, maxFileBytes }, deps.blobs);
  }
  const isJson = type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
  if (type !== 'application/x-www-form-urlencoded' && !isJson) throw IngestErrors.unsupportedType(type);
  if (charset && !/^charset="?utf-?8"?$/.test(charset)) throw IngestErrors.unsupportedCharset();
  const body = await readBody(req, deps.limits.maxBodyBytes);
  return isJson ? parseJson(body, deps.limits) : parseUrlencoded(body, deps.limits);
}

/** The last settings resolved for each form's own settings object: one merge per change of either side, not per request. */
const resolved = new WeakMap<object, { org: SpamSettingsPatch | null; settings: SpamSettings }>();
const NO_FORM_SETTINGS = {};

function settingsInForce(org: SpamSettingsPatch | null, form: SpamSettingsPatch | null | undefined): SpamSettings {
  const key = form ?? NO_FORM_SETTINGS;
  const hit = resolved.get(key);
  if (hit && hit.org === org) return hit.settings;
  const settings = resolveSpamSettings(org, form);
  resolved.set(key, { org, settings });
  return settings;
}

/** The spam settings in force for a form: its own over its organization's defaults over the built-in ones. */
export function spamSettingsOf(deps: Pick<ReceiveDeps, 'orgSettings'>, form: Form): SpamSettings {
  return settingsInForce(deps.orgSettings.spamDefaults(form.orgId), form.settings.spam);
}

/**
 * Accepts one submission: the before-body spam layers, parse within limits, split reserved fields, the honeypot and
 * the after-body spam layers (`spam/evaluate.ts`), quota, append
 * `submission.received`. Resolves only after the log acknowledged the append (the commit point); throws an
 * `AppError` otherwise, having stored nothing (uploaded files are deleted again). A rejection found once the body
 * was parsed comes back as `rejected`, with the submitter's `_error` page when the form allows it.
 */
export async function receiveSubmission(deps: ReceiveDeps, req: IncomingMessage, formKey: string): Promise<Outcome> {
  const form = findForm(deps, formKey);
  const clientKey = idempotencyKey(req, deps.limits);
  const settings = spamSettingsOf(deps, form);
  const spamRequest = { form, settings, req, clientIp: deps.clientIp(req), now: deps.clock.now() };
  // Stage times (milliseconds, `performance.now()`), reported once the submission is accepted.
  const t0 = performance.now();
  const checked = deps.spam.beforeBody(spamRequest);
  const before = checked instanceof Promise ? await checked : checked;
  const t1 = performance.now();
  const parsed = await parseBody(req, deps, form);
  const referer = req.headers.referer ?? req.headers.origin;
  const split = splitReservedFields(parsed.fields, form.settings.honeypotField);
  const t2 = performance.now();
  try {
    let { files } = parsed;
    let key = clientKey;
    if (files.length > 0) {
      checkStorageLeft(deps, form);
      const rules = rulesFor(deps, form);
      for (const f of files) checkAllowedType(rules, f.field, baseType(f.contentType));
      await Promise.all(files.map((f) => checkStoredType(deps.blobs, f)));
    }
    if (split.uploads !== undefined) {
      const attached = await attachUploads(deps, form, split.uploads, clientKey);
      files = files.concat(attached.files);
      key = attached.idempotencyKey;
      if (files.length > deps.limits.maxFiles) throw IngestErrors.tooManyFiles(deps.limits.maxFiles);
    }
    if (split.data.length === 0 && files.length === 0) throw IngestErrors.empty();
    const verdict = deps.spam.afterBody(
      { ...spamRequest, fields: split.data, captchaTokens: split.captchaTokens, reserved: split.reserved },
      split.spam,
      before,
    );
    const spam = verdict instanceof Promise ? await verdict : verdict;
    const t3 = performance.now();
    const receivedAt = deps.clock.now().toISOString();
    const submissionId = key ? deps.ids.derived(form.id, key) : deps.ids.next();
    const event: SubmissionReceived = {
      id: submissionId,
      type: 'submission.received',
      version: 1,
      occurredAt: receivedAt,
      data: {
        submissionId,
        formId: form.id,
        orgId: form.orgId,
        receivedAt,
        fields: split.data,
        files,
        meta: split.meta,
        spam,
        held: !spam.isSpam && deps.quota.isOverQuota(form.orgId, billingPeriodOf(receivedAt)),
        ...(key ? { idempotencyKey: key } : {}),
        ...requestSource(req),
        formVersion: form.version,
      },
    };
    try {
      await deps.bus.publish(Topics.ingestSubmission, [
        { key: form.id, value: encodeEvent(Topics.ingestSubmission, event) },
      ]);
    } catch (err) {
      throw IngestErrors.unavailable(err);
    }
    if (deps.observeStage) {
      deps.observeStage('spam', (t1 - t0 + (t3 - t2)) / 1000);
      deps.observeStage('parse', (t2 - t1) / 1000);
      deps.observeStage('append', (performance.now() - t3) / 1000);
    }
    const next =
      safeRedirect(split.redirect, form.settings, referer) ?? defaultNext(form.settings, deps.publicBaseUrl, referer);
    return { accepted: { id: submissionId, next, spam: spam.isSpam } };
  } catch (err) {
    await Promise.allSettled(parsed.files.map((f) => deps.blobs.delete(f.blobKey)));
    if (!(err instanceof AppError)) throw err;
    return { rejected: err, errorRedirect: safeRedirect(split.errorRedirect, form.settings, referer) };
  }
}
