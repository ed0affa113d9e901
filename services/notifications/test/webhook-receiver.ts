import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type ReceiverHandler = (request: ReceivedRequest, response: ServerResponse) => void;

/** A real HTTP server for the webhook tests: records every connection and request, answers with `handler`. */
export interface WebhookReceiver {
  url: string;
  port: number;
  /** TCP connections accepted, whether or not a request followed. */
  connections: number;
  requests: ReceivedRequest[];
  handler: ReceiverHandler;
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1'): Promise<WebhookReceiver> {
  const sockets = new Set<Socket>();
  const receiver = {
    connections: 0,
    requests: [] as ReceivedRequest[],
    handler: ((_request, response) => response.end('ok')) as ReceiverHandler,
  } as WebhookReceiver;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      receiver.requests.push(request);
      receiver.handler(request, res);
    });
  });
  server.on('connection', (socket) => {
    receiver.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  receiver.port = port;
  receiver.url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  receiver.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
