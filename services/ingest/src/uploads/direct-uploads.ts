import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  MAX_SUBMISSION_FILE_BYTES,
  UPLOAD_TTL_SECONDS,
  UPLOAD_URL_TTL_SECONDS,
  type UploadsGrant,
  type UploadsRequestSchema,
} from '@formgate/contracts';
import { PUBLIC_ROUTES } from '@formgate/contracts/routes';
import { AppError } from '@formgate/kit';
import { BlobTooLargeError } from '@formgate/store';
import { IngestErrors } from '../ingest-errors.ts';
import { decodedBody, readBody } from '../parse/read-body.ts';
import { findForm, idempotencyKey, type ReceiveDeps, spamSettingsOf } from '../receive-submission.ts';
import { CORS_HEADERS } from '../respond.ts';
import { baseType, checkAllowedType } from './file-rules.ts';
import type { UploadedFile } from './upload-tokens.ts';
import { checkStorageLeft, rulesFor, seconds } from './uploaded-files.ts';

/** The CORS answer of the upload routes (a page on another origin calls them). */
export const UPLOAD_CORS_HEADERS = {
  ...CORS_HEADERS,
  'access-control-allow-methods': 'POST, PUT, OPTIONS',
} as const;

/**
 * `POST /f/{formKey}/uploads` (issue 33): checks the files a submission will carry against the form's rules (count,
 * size, type) and answers where to PUT each — a presigned storage URL, or ingest's own PUT route — and the `_uploads`
 * token the submission then sends, bound to the form and to the submission's idempotency key (the request's
 * `Idempotency-Key`, or a new one it answers): every submission naming the token is the same submission. The
 * before-body spam layers run first (origin, rate limits), as for a submission.
 */
export async function grantUploads(deps: ReceiveDeps, req: IncomingMessage, formKey: string): Promise<UploadsGrant> {
  const form = findForm(deps, formKey);
  const key = idempotencyKey(req, deps.limits) ?? deps.ids.next();
  const checked = deps.spam.beforeBody({
    form,
    settings: spamSettingsOf(deps, form),
    req,
    clientIp: deps.clientIp(req),
    now: deps.clock.now(),
  });
  if (checked instanceof Promise) await checked;
  const type = baseType(req.headers['content-type'] ?? '');
  if (type !== 'application/json') throw IngestErrors.unsupportedType(type);
  // The route's schema: strict, as the description says (an unknown key is refused).
  const schema = PUBLIC_ROUTES.grantUploads.request.body;
  let parsed: ReturnType<typeof UploadsRequestSchema.safeParse>;
  try {
    parsed = schema.safeParse(JSON.parse((await readBody(req, deps.limits.maxBodyBytes)).toString('utf8')));
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw IngestErrors.malformed('The body is not valid JSON');
  }
  if (!parsed.success) {
    throw IngestErrors.malformed(
      `Send {"files":[{"field","filename","contentType","size"}]}: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    );
  }
  const rules = rulesFor(deps, form);
  const { files } = parsed.data;
  if (files.length > 0) checkStorageLeft(deps, form);
  if (files.length > deps.limits.maxFiles) throw IngestErrors.tooManyFiles(deps.limits.maxFiles);
  let total = 0;
  for (const f of files) {
    if (f.size > rules.maxFileBytes) throw IngestErrors.fileTooBig(f.field, rules.maxFileBytes);
    checkAllowedType(rules, f.field, f.contentType);
    total += f.size;
  }
  if (total > MAX_SUBMISSION_FILE_BYTES) throw IngestErrors.tooLarge(MAX_SUBMISSION_FILE_BYTES);
  const now = seconds(deps);
  const uploads: UploadedFile[] = files.map((f) => ({
    field: f.field.toWellFormed(),
    blobKey: randomBytes(18).toString('base64url'),
    size: f.size,
    contentType: f.contentType,
    filename: f.filename.toWellFormed(),
  }));
  const targets = await Promise.all(
    uploads.map(async (u) => {
      if (deps.directUploads) {
        const info = { contentType: u.contentType, filename: u.filename };
        return deps.directUploads.presignPut(u.blobKey, info, u.size, UPLOAD_URL_TTL_SECONDS);
      }
      const token = deps.uploadTokens.signPut(form.id, u, now + UPLOAD_URL_TTL_SECONDS);
      return {
        url: `/f/${formKey}/uploads/${u.blobKey}?token=${token}`,
        headers: { 'content-type': u.contentType },
      };
    }),
  );
  const expiresAt = now + UPLOAD_TTL_SECONDS;
  return {
    uploads: deps.uploadTokens.signDraft(form.id, key, uploads, expiresAt),
    expiresAt: new Date(expiresAt * 1000).toISOString(),
    files: uploads.map((u, i) => ({
      field: u.field,
      method: 'PUT' as const,
      ...(targets[i] as { url: string; headers: Record<string, string> }),
    })),
  };
}

/**
 * `PUT /f/{formKey}/uploads/{blobKey}?token=…` (blob stores without presigned URLs): the body, exactly the size the
 * token names, streamed into the blob store under the token's key (a retry replaces it). The type is checked when a
 * submission names it.
 */
export async function receiveUpload(
  deps: ReceiveDeps,
  req: IncomingMessage,
  formKey: string,
  blobKey: string,
  token: string,
): Promise<void> {
  const form = findForm(deps, formKey);
  const file = deps.uploadTokens.openPut(token, form.id, blobKey, seconds(deps));
  if (!file) throw IngestErrors.uploadsInvalid();
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) !== file.size) {
    throw IngestErrors.malformed(`The upload must be exactly ${file.size} bytes`);
  }
  const body = decodedBody(req);
  let size: number;
  try {
    ({ size } = await deps.blobs.put(
      blobKey,
      body,
      { contentType: file.contentType, filename: file.filename },
      file.size,
    ));
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (err instanceof BlobTooLargeError) throw IngestErrors.fileTooBig(file.field, file.size);
    throw IngestErrors.unavailable(err);
  }
  if (size !== file.size) {
    await deps.blobs.delete(blobKey).catch(() => {});
    throw IngestErrors.malformed(`The upload must be exactly ${file.size} bytes`);
  }
}
