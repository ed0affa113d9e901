import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { type BlobInfo, type BlobStore, BlobTooLargeError, checkBlobKey } from './blob-store.ts';

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

/**
 * `BlobStore` on the local disk: `<dir>/<key>` plus `<key>.json` metadata, written then renamed, without fsync.
 */
export function createFsBlobStore(dir: string): BlobStore {
  let ready: Promise<unknown> | undefined;
  return {
    async put(key, data, info, maxBytes) {
      checkBlobKey(key);
      ready ??= mkdir(dir, { recursive: true }).catch((err: unknown) => {
        ready = undefined;
        throw err;
      });
      await ready;
      const tmp = join(dir, `.${key}.partial`);
      let size = 0;
      const file = createWriteStream(tmp, { flags: 'wx' });
      try {
        await pipeline(
          data,
          byteLimit(maxBytes, (n) => {
            size = n;
          }),
          file,
        );
        await writeFile(join(dir, `${key}.json`), JSON.stringify(info));
        await rename(tmp, join(dir, key));
      } catch (err) {
        // The file may still be opening when the source fails: remove it only once the stream has closed.
        await finished(file).catch(() => {});
        await rm(tmp, { force: true });
        await rm(join(dir, `${key}.json`), { force: true });
        throw err;
      }
      return { size };
    },
    async get(key) {
      checkBlobKey(key);
      try {
        const [meta, st] = await Promise.all([readFile(join(dir, `${key}.json`), 'utf8'), stat(join(dir, key))]);
        return { stream: createReadStream(join(dir, key)), info: JSON.parse(meta) as BlobInfo, size: st.size };
      } catch (err) {
        if ((err as { code?: string }).code === 'ENOENT') return null;
        throw err;
      }
    },
    async delete(key) {
      checkBlobKey(key);
      await rm(join(dir, key), { force: true });
      await rm(join(dir, `${key}.json`), { force: true });
    },
  };
}
