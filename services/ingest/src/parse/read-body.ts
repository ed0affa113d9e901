import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { IngestErrors } from '../ingest-errors.ts';

/** The request body, decompressed according to `Content-Encoding`. */
export function decodedBody(req: IncomingMessage): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  switch (encoding) {
    case 'identity':
    case '':
      return req;
    case 'gzip':
    case 'x-gzip':
      return req.pipe(createGunzip());
    case 'deflate':
      return req.pipe(createInflate());
    case 'br':
      return req.pipe(createBrotliDecompress());
    default:
      throw IngestErrors.unsupportedEncoding();
  }
}

/**
 * Stops decoding (a decompressor is destroyed, so a bomb is not inflated further) and discards the rest of the raw
 * request without buffering it. The request itself is never destroyed, so the error answer still reaches the client.
 */
export function discardBody(req: IncomingMessage, body: Readable) {
  if (body !== req) body.destroy();
  req.unpipe();
  req.resume();
}

/** Rejects at once when the declared length already exceeds the limit of an uncompressed body. */
export function checkDeclaredLength(req: IncomingMessage, limit: number) {
  const declared = Number(req.headers['content-length']);
  const encoded = req.headers['content-encoding'] && req.headers['content-encoding'] !== 'identity';
  if (!encoded && Number.isFinite(declared) && declared > limit) throw IngestErrors.tooLarge(limit);
}

/** Reads the whole decoded body, failing with 413 as soon as it passes `limit` bytes (never buffering more). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  checkDeclaredLength(req, limit);
  const body = decodedBody(req);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        body.off('data', onData);
        chunks.length = 0;
        discardBody(req, body);
        reject(IngestErrors.tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    body.on('data', onData);
    body.on('end', () => resolve(Buffer.concat(chunks, size)));
    body.on('error', () => reject(IngestErrors.malformed('The body could not be read or decompressed')));
  });
}
