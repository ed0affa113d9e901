import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** What a server made by `createHttpServer` knows of its connections, for `drainServer`. */
interface OpenConnections {
  /** Requests in flight per open connection: 0 is idle, or connected without having sent a request yet. */
  inFlight: Map<Socket, number>;
  /** Responses that stay open until ended (event streams), each with how it ends. */
  streams: Map<ServerResponse, () => void>;
  draining: boolean;
}

const ofServer = new WeakMap<Server, OpenConnections>();
const ofSocket = new WeakMap<Socket, OpenConnections>();

/** Counts each connection's requests in flight and keeps the streams `endOnDrain` names (`createHttpServer`). */
export function trackConnections(server: Server): void {
  const open: OpenConnections = { inFlight: new Map(), streams: new Map(), draining: false };
  ofServer.set(server, open);
  server.on('connection', (socket: Socket) => {
    open.inFlight.set(socket, 0);
    ofSocket.set(socket, open);
    socket.once('close', () => open.inFlight.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    open.inFlight.set(socket, (open.inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const n = open.inFlight.get(socket);
      if (n !== undefined) open.inFlight.set(socket, Math.max(0, n - 1));
    });
  });
}

/**
 * Marks `res` as a response that stays open until it is ended (an event stream): `drainServer` ends it with `end`
 * (default `res.end()`) instead of waiting for it, at once if the server is draining already. A response of a server
 * not made by `createHttpServer` is left as it is.
 */
export function endOnDrain(res: ServerResponse, end: () => void = () => res.end()): void {
  const open = res.socket ? ofSocket.get(res.socket) : undefined;
  if (!open) return;
  if (open.draining) {
    end();
    return;
  }
  open.streams.set(res, end);
  res.once('close', () => {
    open.streams.delete(res);
  });
}

/**
 * Stops accepting connections and resolves once every open one has ended: requests in flight finish, streams named
 * by `endOnDrain` are ended, and a connection with no request in flight is closed as soon as it is seen so (checked
 * every 50 ms). Node's `closeIdleConnections()` alone would leave a connection that never sent a request — a
 * client's pool may open one ahead (undici does after an aborted `fetch`) — until its headers timeout.
 */
export function drainServer(server: Server): Promise<void> {
  const open = ofServer.get(server);
  return new Promise((resolve) => {
    const sweep = () => {
      server.closeIdleConnections();
      for (const [socket, n] of open?.inFlight ?? []) if (n === 0) socket.destroy();
    };
    if (open) {
      open.draining = true;
      for (const end of [...open.streams.values()]) end();
    }
    const timer = setInterval(sweep, 50);
    server.close(() => {
      clearInterval(timer);
      resolve();
    });
    sweep();
  });
}
