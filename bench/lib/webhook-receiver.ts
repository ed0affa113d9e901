import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One webhook request as the receiver saw it: when it arrived (the bench's clock) and the submission it is about. */
export interface ReceivedWebhook {
  at: number;
  submissionId: string | null;
  type: string | null;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/p12`: the endpoint's URL (loopback: the deployment needs `WEBHOOKS_ALLOW_PRIVATE_TARGETS`). */
  url: string;
  /** Called for every request (null: none). */
  onWebhook(listener: ((hook: ReceivedWebhook) => void) | null): void;
  stop(): Promise<void>;
}

/**
 * P12's webhook half: a bare `node:http` receiver inside the bench process (the load generator's clock), answering
 * 204 at once. Each request's arrival is recorded with the submission id of its Standard Webhooks body
 * (`{type, timestamp, data: {id, …}}`). Signatures are not checked here (the service's tests do that).
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let listener: ((hook: ReceivedWebhook) => void) | null = null;
  const server: Server = createServer((req, res) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(204).end();
      let submissionId: string | null = null;
      let type: string | null = null;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: unknown; data?: { id?: unknown } };
        submissionId = typeof body.data?.id === 'string' ? body.data.id : null;
        type = typeof body.type === 'string' ? body.type : null;
      } catch {
        // Counted as an unexpected request (no submission id).
      }
      listener?.({ at, submissionId, type });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/p12`,
    onWebhook: (l) => {
      listener = l;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
