import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Page, Request } from 'playwright-core';
import { onTestFinished } from 'vitest';

/** The largest submission's files: the 100 MiB every way of sending files allows (docs/ingest.md, "Files"). */
export const SCAN_BYTES = 100 * 1024 * 1024;
export const PDF_HEAD = Buffer.from('%PDF-1.7\n');

/**
 * A site's upload form written with `useForm` from `@formgate/client/react` (bundled as a site would:
 * `client-page.ts`): a text field and two file inputs. The hook sends a `FormData` holding a file by direct uploads
 * (its default, `uploads: 'auto'`); `retries: 0`, so a failed step shows at once. Each field's errors show under it
 * (`.field-error`), the form's as alerts.
 */
export const UPLOAD_PAGE_SOURCE = `
import { useForm } from './client/react.js';
import { createRoot } from 'react-dom/client';

function Upload() {
  const [state, handleSubmit] = useForm(window.FORM_KEY, { baseUrl: window.FORMGATE_URL, retries: 0 });
  if (state.succeeded) {
    return <p role="status">Received: <span id="submission-id">{state.result.id}</span></p>;
  }
  const fieldError = (name) =>
    state.errors?.fields[name]?.map((e) => <span key={e.code} className="field-error" data-field={name}>{e.code}: {e.message}</span>);
  return (
    <form onSubmit={handleSubmit}>
      <label>Name <input name="name" /></label>
      {fieldError('name')}
      <label>Scan <input name="scan" type="file" /></label>
      {fieldError('scan')}
      <label>Photo <input name="photo" type="file" /></label>
      {fieldError('photo')}
      {state.errors?.form.map((e) => <p key={e.code} role="alert">{e.code}</p>)}
      {state.submitting && <p id="sending">Sending…</p>}
      <button type="submit" disabled={state.submitting}>Send</button>
    </form>
  );
}
createRoot(document.getElementById('root')).render(<Upload />);
`;

/** Writes `size` bytes, `head` then random ones, to `path` a MiB at a time; answers their sha256 (hex). */
export async function writeRandomFile(path: string, head: Buffer, size: number): Promise<string> {
  const hash = createHash('sha256');
  async function* chunks() {
    hash.update(head);
    yield head;
    for (let left = size - head.length; left > 0; ) {
      const chunk = randomBytes(Math.min(1024 * 1024, left));
      hash.update(chunk);
      left -= chunk.length;
      yield chunk;
    }
  }
  await pipeline(Readable.from(chunks()), createWriteStream(path));
  return hash.digest('hex');
}

/** Every request the page makes from now until the test ends. */
export function recordRequests(page: Page): Request[] {
  const seen: Request[] = [];
  const onRequest = (request: Request) => seen.push(request);
  page.on('request', onRequest);
  onTestFinished(() => {
    page.off('request', onRequest);
  });
  return seen;
}
