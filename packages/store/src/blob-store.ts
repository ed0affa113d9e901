import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';

export interface BlobInfo {
  contentType: string;
  filename: string;
}

/**
 * Uploaded files. Keys are chosen by Formgate (random), never derived from a client's file name.
 * - `put` resolves only once the whole stream is durably stored; if the stream errors or `maxBytes` is exceeded
 *   it rejects (`BlobTooLargeError` for the latter) and nothing is left under the key.
 * - `put` may also reject because the store cannot take the write now (`OverloadedError` when its queue is full):
 *   the caller should ask the client to retry, not buffer.
 * - `get` returns `null` for an unknown key; `delete` of an unknown key is not an error.
 * - `listBefore` pages through the keys of blobs stored before a time, in key order: each call answers the keys
 *   after `cursor` (a previous call's `next`) and the cursor of the next page, `null` after the last. A page may be
 *   empty while `next` is not. Blobs stored before the adapter kept times count as stored before any time.
 */
export interface BlobStore {
  put(key: string, data: Readable, info: BlobInfo, maxBytes: number): Promise<{ size: number }>;
  get(key: string): Promise<{ stream: Readable; info: BlobInfo; size: number } | null>;
  delete(key: string): Promise<void>;
  listBefore(before: Date, cursor: string | null, limit: number): Promise<{ keys: string[]; next: string | null }>;
}

const SAFE_KEY = /^[A-Za-z0-9_-]{8,128}$/;

/** Whether `key` has the shape of the keys Formgate generates. */
export const isBlobKey = (key: string) => SAFE_KEY.test(key);

/** Throws unless `key` has the shape of the keys Formgate generates, so that a key can never name a path. */
export function checkBlobKey(key: string) {
  if (!SAFE_KEY.test(key)) throw new Error('invalid blob key');
}

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`blob exceeds ${maxBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

/** Counts bytes and fails the pipeline past `maxBytes`. */
export function byteLimit(maxBytes: number, onSize: (n: number) => void) {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new BlobTooLargeError(maxBytes));
      onSize(size);
      done(null, chunk);
    },
  });
}
