import type { BlobStore } from './blob-store.ts';

/**
 * `primary`, reading through to `legacy` for keys `primary` does not have. New blobs go to `primary` only; a delete
 * removes the key from both. Embedded mode keeps the files of older installs (`DATA_DIR/blobs`) readable with it.
 */
export function createFallbackBlobStore(primary: BlobStore, legacy: BlobStore): BlobStore {
  return {
    put: (key, data, info, maxBytes) => primary.put(key, data, info, maxBytes),
    async get(key) {
      return (await primary.get(key)) ?? legacy.get(key);
    },
    async delete(key) {
      await primary.delete(key);
      await legacy.delete(key);
    },
  };
}
