const CHUNK_ERROR =
  /dynamically imported module|Importing a module script failed|error loading dynamically imported module|Failed to load module script/i;
const KEY_PREFIX = 'formgate:chunk-reload:';

export const isChunkLoadError = (err: unknown): err is Error => err instanceof Error && CHUNK_ERROR.test(err.message);

/**
 * A route module that fails to load (usually: a deploy replaced its hashed file) reloads the page once per distinct
 * message; the same failure after that reload is shown, so a truly missing file never loops. Answers whether it
 * reloaded.
 */
export function reloadOnceForChunkError(err: unknown, storage: Storage, reload: () => void): boolean {
  if (!isChunkLoadError(err)) return false;
  const key = KEY_PREFIX + err.message;
  if (storage.getItem(key) !== null) return false;
  storage.setItem(key, '1');
  reload();
  return true;
}
