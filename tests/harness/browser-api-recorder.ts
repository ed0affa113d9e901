import type { Browser, BrowserContext, Response } from 'playwright-core';
import { MAX_BODY_CHARS, recordApiAnswer, STAND_IN_HEADER } from './api-recorder.ts';

/**
 * A body Chromium received, as text; null past the recorder's cap on `fetch` answers (counted in bytes here), and
 * when Chromium keeps none (a redirect) or dropped it already (a page that navigated away).
 */
async function bodyText(response: Response): Promise<string | null> {
  try {
    const body = await response.body();
    return body.length > MAX_BODY_CHARS ? null : body.toString('utf8');
  } catch {
    return null;
  }
}

function recordContext(context: BrowserContext): void {
  context.on('response', (response) => {
    const headers = response.headers();
    if (headers[STAND_IN_HEADER]) return;
    recordApiAnswer({
      method: response.request().method(),
      path: new URL(response.url()).pathname,
      status: response.status(),
      contentType: headers['content-type'] ?? null,
      text: async () => {
        // A request that failed mid-body (the page closed, the server died) is not an answer to check.
        const failed = await response.finished();
        if (failed) throw failed;
        return bodyText(response);
      },
    });
  });
}

/**
 * Records the API answers every page of `browser` sees (the dashboard's calls to `/api/v1/...`, a form's post to
 * `/f/...`) with the process's API recorder (`api-recorder.ts`), in the same samples as the test's own `fetch`:
 * the browser tier's answers are checked against the OpenAPI description too. Does nothing when the process does not
 * record.
 */
export function recordBrowserApiAnswers(browser: Browser): void {
  for (const context of browser.contexts()) recordContext(context);
  browser.on('context', recordContext);
}
