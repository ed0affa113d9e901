import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a webhook receiver of a test received: its path and its body as text. */
export interface RecordedRequest {
  url: string;
  body: string;
}

/** A request a `startWebhookRecorder` received, with its headers (the signature's). */
export interface RecordedWebhook extends RecordedRequest {
  headers: IncomingHttpHeaders;
}

/**
 * A local HTTP endpoint for webhooks in tests: records every request (path, headers and body) and answers 200 `ok`,
 * or the status `statusFor(path)` gives (410 for a REST hook's target that is gone, say). `url` is
 * `http://127.0.0.1:<port>`; the app must allow private targets (`WEBHOOKS_ALLOW_PRIVATE_TARGETS`).
 */
export async function startWebhookRecorder(options: { statusFor?: (url: string) => number } = {}) {
  const received: RecordedWebhook[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body });
      res.statusCode = options.statusFor?.(req.url ?? '') ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
