import type { Readable } from 'node:stream';
import type { SubmissionFile } from '@formgate/contracts';
import type { Clock } from '@formgate/kit';
import type { BlobInfo, BlobStore } from '@formgate/store';
import { IngestErrors } from '../ingest-errors.ts';
import type { IngestLimits } from '../limits.ts';
import { checkAllowedType, type FileRules, fileRulesOf, SNIFF_BYTES, typeMatches } from './file-rules.ts';
import type { UploadTokens } from './upload-tokens.ts';

/**
 * Where a browser can PUT a file itself (S3 presigned URLs), when the blob store offers it. Without one, files go
 * through ingest's own `PUT /f/{key}/uploads/{blobKey}` into the blob store (embedded mode, GridFS).
 */
export interface DirectUploadTarget {
  presignPut(
    key: string,
    info: BlobInfo,
    size: number,
    expiresInSeconds: number,
  ): Promise<{ url: string; headers: Record<string, string> }>;
}

/** What an organization's plan allows for files: the largest file, and whether its file storage is full. */
export interface OrgFilePlans {
  /** The plan's `maxFileMb`; `null`: no plan limit. */
  maxFileMb(orgId: string): number | null;
  /** Its stored files reach the plan's `fileStorageMb` (as billing last measured). */
  storageFull(orgId: string): boolean;
}

/** What checking and attaching uploaded files needs (a part of `ReceiveDeps`). */
export interface UploadedFilesDeps {
  blobs: BlobStore;
  clock: Clock;
  limits: IngestLimits;
  uploadTokens: UploadTokens;
  plans?: OrgFilePlans;
}

/** Now, in the UNIX seconds the upload tokens' expiries are in. */
export const seconds = (deps: Pick<UploadedFilesDeps, 'clock'>) => Math.floor(deps.clock.now().getTime() / 1000);

/** The form's file rules as they apply now (its settings, its organization's plan, the deployment's limits). */
/** Throws 413 `FILE_STORAGE_FULL` when the form's organization has no file storage left on its plan. */
export function checkStorageLeft(deps: Pick<UploadedFilesDeps, 'plans'>, form: { orgId: string }) {
  if (deps.plans?.storageFull(form.orgId)) throw IngestErrors.storageFull();
}

export function rulesFor(deps: Pick<UploadedFilesDeps, 'limits' | 'plans'>, form: Parameters<typeof fileRulesOf>[0]) {
  return fileRulesOf(form, deps.plans?.maxFileMb(form.orgId) ?? null, deps.limits);
}

/** The first bytes of a stored file (at most `SNIFF_BYTES`), reading no further. */
async function headOf(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      parts.push(chunk);
      length += chunk.length;
      if (length >= SNIFF_BYTES) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(parts, length).subarray(0, SNIFF_BYTES);
}

/** Throws 400 `FILE_TYPE_MISMATCH` unless a stored file's first bytes agree with its declared type. */
export async function checkStoredType(blobs: BlobStore, file: SubmissionFile) {
  const blob = await blobs.get(file.blobKey);
  if (!blob) throw IngestErrors.unavailable();
  if (!(await typeMatches(file.contentType, await headOf(blob.stream)))) throw IngestErrors.typeMismatch(file.field);
}

/**
 * The files of a submission's `_uploads` token: each must be stored whole (its declared size) and be of its
 * declared type, within the form's rules as they are now. Also the submission's idempotency key (the token's): a
 * different `Idempotency-Key` on the request is refused.
 */
export async function attachUploads(
  deps: UploadedFilesDeps,
  form: Parameters<typeof fileRulesOf>[0],
  token: string,
  requestKey: string | undefined,
): Promise<{ idempotencyKey: string; files: SubmissionFile[] }> {
  const draft = deps.uploadTokens.openDraft(token, form.id, seconds(deps));
  if (!draft || (requestKey !== undefined && requestKey !== draft.idempotencyKey)) throw IngestErrors.uploadsInvalid();
  const rules: FileRules = rulesFor(deps, form);
  const files = await Promise.all(
    draft.files.map(async (u) => {
      if (u.size > rules.maxFileBytes) throw IngestErrors.fileTooBig(u.field, rules.maxFileBytes);
      checkAllowedType(rules, u.field, u.contentType);
      const blob = await deps.blobs.get(u.blobKey).catch((err: unknown) => {
        throw IngestErrors.unavailable(err);
      });
      if (!blob) throw IngestErrors.uploadMissing(u.field);
      const head = await headOf(blob.stream);
      if (blob.size !== u.size) throw IngestErrors.uploadMissing(u.field);
      if (!(await typeMatches(u.contentType, head))) throw IngestErrors.typeMismatch(u.field);
      return { field: u.field, blobKey: u.blobKey, filename: u.filename, contentType: u.contentType, size: u.size };
    }),
  );
  return { idempotencyKey: draft.idempotencyKey, files };
}
