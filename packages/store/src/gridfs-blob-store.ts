import type { Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { type Connection, mongo } from 'mongoose';
import { type BlobInfo, type BlobStore, byteLimit } from './blob-store.ts';

const write = (to: Writable, chunk: Buffer) =>
  new Promise<void>((resolve, reject) => {
    to.write(chunk, (err) => (err ? reject(err) : resolve()));
  });

/**
 * `BlobStore` on GridFS (MongoDB 7+ or FerretDB 1.24): one GridFS file per key (filename = key, metadata = info).
 * Chunks are written one at a time; when the stream fails or passes `maxBytes`, the chunk write in flight is awaited
 * and then the partial file's chunks are deleted. A file becomes visible only once its files document is written.
 * A later `put` under the same key replaces the earlier file. The indexes are GridFS's own, created by the driver at
 * the bucket's first upload: `filename_1_uploadDate_1` on the files, `files_id_1_n_1` (unique) on the chunks.
 */
export function createGridFsBlobStore(conn: Connection, bucketName = 'blobs'): BlobStore {
  const db = conn.db;
  if (!db) throw new Error('createGridFsBlobStore: the connection is not open');
  const bucket = new mongo.GridFSBucket(db, { bucketName });
  const files = db.collection<mongo.GridFSFile>(`${bucketName}.files`);
  const chunks = db.collection<mongo.GridFSChunk>(`${bucketName}.chunks`);

  // One file at a time, by equality: FerretDB 1.24 pushes an equality down to PostgreSQL but answers an `$in` by
  // reading every chunk ever stored (ADR 56), and a rejected upload to the public endpoint removes its partial file.
  const remove = async (ids: mongo.ObjectId[]) => {
    for (const _id of ids) {
      // The file by `_id`, its chunks by index `files_id_1_n_1` (by its prefix).
      await files.deleteOne({ _id });
      await chunks.deleteMany({ files_id: _id });
    }
  };

  return {
    async put(key, data, info, maxBytes) {
      const metadata: BlobInfo = { contentType: info.contentType, filename: info.filename };
      const upload = bucket.openUploadStream(key, { metadata });
      upload.on('error', () => {});
      let size = 0;
      let writing: Promise<void> = Promise.resolve();
      try {
        await pipeline(
          data,
          byteLimit(maxBytes, (n) => {
            size = n;
          }),
          async (source: AsyncIterable<Buffer>) => {
            for await (const chunk of source) {
              writing = write(upload, chunk);
              await writing;
            }
            upload.end();
            await finished(upload);
          },
        );
      } catch (err) {
        await writing.catch(() => {});
        upload.destroy();
        await remove([upload.id]);
        throw err;
      }
      // Index `filename_1_uploadDate_1` (by its prefix); the `_id` is checked on the key's few files.
      const older = await files.find({ filename: key, _id: { $ne: upload.id } }, { projection: { _id: 1 } }).toArray();
      await remove(older.map((f) => f._id));
      return { size };
    },
    async get(key) {
      // Index `filename_1_uploadDate_1`.
      const [file] = await bucket.find({ filename: key }, { sort: { uploadDate: -1 }, limit: 1 }).toArray();
      if (!file) return null;
      const { contentType, filename } = (file.metadata ?? {}) as Partial<BlobInfo>;
      return {
        stream: bucket.openDownloadStream(file._id),
        info: { contentType: contentType ?? 'application/octet-stream', filename: filename ?? key },
        size: file.length,
      };
    },
    async delete(key) {
      // Index `filename_1_uploadDate_1` (by its prefix).
      const found = await files.find({ filename: key }, { projection: { _id: 1 } }).toArray();
      await remove(found.map((f) => f._id));
    },
    async listBefore(before, cursor, limit) {
      // Index `filename_1_uploadDate_1`: a range of names in its order, the time checked on the same entries.
      const page = await files
        .find(
          { filename: { $gt: cursor ?? '' }, uploadDate: { $lt: before } },
          { projection: { filename: 1 }, sort: { filename: 1 }, limit },
        )
        .toArray();
      const names = page.map((f) => f.filename);
      return { keys: [...new Set(names)], next: page.length < limit ? null : (names.at(-1) as string) };
    },
  };
}
