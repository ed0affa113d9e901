import { createServer } from 'node:net';

/**
 * Ports handed to servers the tests start, below Linux's ephemeral range (32768–60999 by default), which the kernel
 * gives to the local end of outgoing connections: a port picked there by `listen(0)` and closed could be taken by
 * any client socket of a parallel test before the child binds it (CI-21: `EADDRINUSE` on 127.0.0.1:33347). Above
 * 10000, and below 29000 where the local Kafka and FerretDB servers of the tests sit.
 */
const FIRST = 10_000;
const LAST = 28_999;

/** Whether nothing listens on 127.0.0.1:`port` now (a listen there succeeds). */
export const canListen = (port: number) =>
  new Promise<boolean>((resolveFree) => {
    const server = createServer();
    server.once('error', () => resolveFree(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolveFree(true)));
  });

/** A port nothing listens on now, chosen at random from 10000–28999 (parallel test files rarely pick the same). */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found in ${FIRST}–${LAST}`);
}
