import { createServer } from 'node:net';
import { loadTestRunConfig } from './config.ts';

/**
 * Ports handed to servers the tests start, below Linux's ephemeral range (32768–60999 by default), which the kernel
 * gives to the local end of outgoing connections: a port picked there by `listen(0)` and closed could be taken by
 * any client socket of a parallel test before the child binds it (`EADDRINUSE` in a parallel run). Above
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

/** Slices of the range, one per vitest worker (`VITEST_POOL_ID`), so parallel test files never draw the same port. */
const SLICES = 8;

/** The ports this process handed out: a child not listening yet must not get its own port twice. */
const handedOut = new Set<number>();

/**
 * A port nothing listens on now and this process has not handed out before, chosen at random from 10000–28999, in
 * the slice of this vitest worker when it runs in one. Two draws for one child (its `PORT` and its `METRICS_PORT`)
 * both passed `canListen` before either was bound, and one child once got the same port for both.
 */
export async function freePort(): Promise<number> {
  const pool = loadTestRunConfig().VITEST_POOL_ID ?? 0;
  const size = Math.floor((LAST - FIRST + 1) / SLICES);
  const sliced = pool > 0;
  const first = sliced ? FIRST + ((pool - 1) % SLICES) * size : FIRST;
  const last = sliced ? first + size - 1 : LAST;
  for (let tries = 0; tries < 200; tries++) {
    const port = first + Math.floor(Math.random() * (last - first + 1));
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port found in ${first}–${last}`);
}
