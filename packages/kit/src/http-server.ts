import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { trackConnections } from './open-connections.ts';

/**
 * An HTTP server with timeouts set below Node's defaults, so slow clients cannot hold connections, and its
 * connections tracked so that `drainServer` can end it promptly.
 */
export function createHttpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 65_000 }, handler);
  server.keepAliveTimeout = 65_000;
  trackConnections(server);
  return server;
}

export function listen(server: Server, port: number, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/**
 * What a request answered before its body was read may still send before its connection is cut. Reading and
 * dropping is cheap; the bound is generous because a proxy in front may have megabytes in flight before it sees the
 * answer and stops — the size of the largest body ingest accepts at all (multipart).
 */
const LINGER_BYTES = 32 * 1024 * 1024;
const LINGER_MS = 5_000;

/**
 * For a request answered before its body was read (413, 415, 404…), still sending it. Closing the socket at once
 * makes our kernel answer the rest with a reset, which can destroy the answer before the client (or a proxy in
 * front) has read it. So: keep reading and dropping what arrives, and cut the connection only past `LINGER_BYTES`
 * or `LINGER_MS`; a client that stops sending keeps its keep-alive connection. Used by ingest's refusals and by the
 * gateway when an instance answered early (without it, an 8 MB post could get `write EPIPE` instead of its 413).
 */
export function lingerThenClose(req: IncomingMessage): void {
  let dropped = 0;
  const cut = () => req.socket.destroy();
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) cut();
  });
  req.on('end', () => clearTimeout(timer));
  req.socket.once('close', () => clearTimeout(timer));
  req.resume();
}
