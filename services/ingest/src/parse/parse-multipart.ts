import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import type { SubmissionField, SubmissionFile } from '@formgate/contracts';
import type { AppError } from '@formgate/kit';
import { type BlobStore, BlobTooLargeError } from '@formgate/store';
import busboy from 'busboy';
import { IngestErrors } from '../ingest-errors.ts';
import type { IngestLimits } from '../limits.ts';
import { checkedField, type ParsedBody } from './parsed-body.ts';
import { checkDeclaredLength, decodedBody, discardBody } from './read-body.ts';

/**
 * Streams a multipart body: fields are checked as they arrive, files go straight to the blob store under random
 * keys. On any failure every blob written for this request is deleted before the error is thrown.
 */
export async function parseMultipart(
  req: IncomingMessage,
  limits: IngestLimits,
  blobs: BlobStore,
): Promise<ParsedBody> {
  checkDeclaredLength(req, limits.maxMultipartBytes);
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      // Browsers send a file's name as raw UTF-8 bytes (no RFC 5987 encoding); busboy's default reads them as latin1.
      defParamCharset: 'utf8',
      limits: {
        fieldNameSize: limits.maxFieldNameLength + 1,
        fieldSize: limits.maxFieldValueBytes,
        fields: limits.maxFields,
        files: limits.maxFiles,
        fileSize: limits.maxFileBytes + 1,
        parts: limits.maxParts,
        headerPairs: limits.maxPartHeaderPairs,
      },
    });
  } catch {
    throw IngestErrors.malformed('The multipart body has no valid boundary');
  }
  const fields: SubmissionField[] = [];
  const files: SubmissionFile[] = [];
  const uploads: Promise<unknown>[] = [];
  const written: string[] = [];
  const open = new Set<PassThrough>();
  let failure: AppError | null = null;
  let received = 0;
  const body = decodedBody(req);

  const done = new Promise<void>((resolve) => {
    const fail = (err: AppError) => {
      failure ??= err;
      body.unpipe(parser);
      discardBody(req, body);
      for (const upload of open) upload.destroy(err);
      resolve();
    };
    body.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.maxMultipartBytes) fail(IngestErrors.tooLarge(limits.maxMultipartBytes));
    });
    body.on('error', () => fail(IngestErrors.malformed('The body could not be read or decompressed')));
    // busboy names a part whose `name=""` undefined: it is the empty field name, as in a urlencoded or JSON body.
    parser.on('field', (partName: string | undefined, value, info) => {
      const name = partName ?? '';
      if (failure) return;
      if (info.nameTruncated) return fail(IngestErrors.nameTooLong(limits.maxFieldNameLength));
      if (info.valueTruncated) return fail(IngestErrors.valueTooLong(name, limits.maxFieldValueBytes));
      try {
        fields.push(checkedField(name, value, limits));
      } catch (err) {
        fail(err as AppError);
      }
    });
    parser.on('file', (partName: string | undefined, stream, info) => {
      const name = partName ?? '';
      // busboy destroys an unfinished file stream with an error when the body ends early ("Unexpected end of form").
      stream.on('error', () => fail(IngestErrors.malformed('The multipart body is malformed')));
      if (failure || info.filename === undefined) {
        stream.resume();
        return;
      }
      const blobKey = randomBytes(18).toString('base64url');
      const filename = info.filename.toWellFormed().slice(0, 255);
      const contentType = info.mimeType || 'application/octet-stream';
      const counted = new PassThrough();
      // `fail` may destroy it before `blobs.put` listens (put awaits first); put's rejection reports the error.
      counted.on('error', () => {});
      open.add(counted);
      counted.on('close', () => open.delete(counted));
      stream.on('limit', () => fail(IngestErrors.fileTooBig(name, limits.maxFileBytes)));
      stream.pipe(counted);
      written.push(blobKey);
      uploads.push(
        blobs.put(blobKey, counted, { contentType, filename }, limits.maxFileBytes).then(
          ({ size }) => files.push({ field: name.toWellFormed(), blobKey, filename, contentType, size }),
          (err: unknown) =>
            fail(
              err instanceof BlobTooLargeError
                ? IngestErrors.fileTooBig(name, limits.maxFileBytes)
                : IngestErrors.unavailable(),
            ),
        ),
      );
    });
    parser.on('fieldsLimit', () => fail(IngestErrors.tooManyFields(limits.maxFields)));
    parser.on('filesLimit', () => fail(IngestErrors.tooManyFiles(limits.maxFiles)));
    parser.on('partsLimit', () => fail(IngestErrors.tooManyParts(limits.maxParts)));
    parser.on('error', () => fail(IngestErrors.malformed('The multipart body is malformed')));
    parser.on('close', () => resolve());
    body.pipe(parser);
  });

  await done;
  await Promise.allSettled(uploads);
  if (failure) {
    await Promise.allSettled(written.map((k) => blobs.delete(k)));
    throw failure;
  }
  return { fields, files };
}
