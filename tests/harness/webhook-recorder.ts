import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a `startWebhookRecorder` received: its path and its body as text. */
export interface RecordedRequest {
  url: string;
  body: string;
}

/**
 * A local HTTP endpoint for webhooks in tests: records every request (path and body) and answers 200 `ok`.
 * `url` is `http://127.0.0.1:<port>`; the app must allow private targets (`WEBHOOKS_ALLOW_PRIVATE_TARGETS`).
 */
export async function startWebhookRecorder() {
  const received: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ url: req.url ?? '', body });
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
