import { createSignedTokens, type SigningSecret } from '@formgate/kit';
import { z } from 'zod';

/** One file of a direct upload, as its tokens carry it (signed: the submission believes nothing else of it). */
export interface UploadedFile {
  field: string;
  /** Where the bytes are in the blob store; random, chosen by ingest. */
  blobKey: string;
  size: number;
  contentType: string;
  filename: string;
}

const FileSchema = z.tuple([z.string(), z.string(), z.number().int().min(0), z.string(), z.string()]);
const DraftSchema = z.tuple([z.literal(1), z.string(), z.string(), z.number().int(), z.array(FileSchema).min(1)]);
const PutSchema = z.tuple([z.literal(1), z.string(), FileSchema, z.number().int()]);
/** Longest token opened: what a field value holds (64 KiB), more than ten files' longest names and fields need. */
const MAX_TOKEN_LENGTH = 64 * 1024;

const toTuple = (f: UploadedFile) => [f.field, f.blobKey, f.size, f.contentType, f.filename] as const;
const fromTuple = ([field, blobKey, size, contentType, filename]: z.infer<typeof FileSchema>): UploadedFile => ({
  field,
  blobKey,
  size,
  contentType,
  filename,
});

/**
 * The tokens of direct uploads (issue 33), signed with ingest's secret:
 * - a **draft** (`_uploads`): the form, the submission's idempotency key, an expiry, and every file it will carry;
 * - a **PUT** token per file (the `?token=` of `PUT /f/{key}/uploads/{blobKey}` when files are not in S3).
 * Expiries are UNIX seconds; `open*` answers `undefined` for anything forged, altered, expired or of another form.
 */
export function createUploadTokens(secret: SigningSecret) {
  const drafts = createSignedTokens(secret, 'ingest-uploads', 'ingest');
  const puts = createSignedTokens(secret, 'ingest-upload-put', 'ingest');
  return {
    signDraft(formId: string, idempotencyKey: string, files: UploadedFile[], expiresAt: number): string {
      return drafts.sign([1, formId, idempotencyKey, expiresAt, files.map(toTuple)]);
    },
    openDraft(
      token: string,
      formId: string,
      nowSeconds: number,
    ): { idempotencyKey: string; files: UploadedFile[] } | undefined {
      const parsed = DraftSchema.safeParse(drafts.open(token, MAX_TOKEN_LENGTH));
      if (!parsed.success) return undefined;
      const [, form, idempotencyKey, exp, files] = parsed.data;
      if (form !== formId || exp < nowSeconds) return undefined;
      return { idempotencyKey, files: files.map(fromTuple) };
    },
    signPut(formId: string, file: UploadedFile, expiresAt: number): string {
      return puts.sign([1, formId, toTuple(file), expiresAt]);
    },
    openPut(token: string, formId: string, blobKey: string, nowSeconds: number): UploadedFile | undefined {
      const parsed = PutSchema.safeParse(puts.open(token, MAX_TOKEN_LENGTH));
      if (!parsed.success) return undefined;
      const [, form, file, exp] = parsed.data;
      if (form !== formId || file[1] !== blobKey || exp < nowSeconds) return undefined;
      return fromTuple(file);
    },
  };
}

export type UploadTokens = ReturnType<typeof createUploadTokens>;
