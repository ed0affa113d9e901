import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeServer, createHttpServer, listen } from './http.ts';
import type { Logger } from './logger.ts';

export interface Closable {
  stop(): Promise<void>;
}

/**
 * Runs a process until SIGINT/SIGTERM: listens with `handler`, then on a signal stops accepting, calls every
 * `closables` entry in order (consumers drain, connections close) and exits. A second signal exits at once.
 */
export async function serveUntilSignal(opts: {
  name: string;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  port: number;
  host: string;
  logger: Logger;
  closables: Closable[];
}) {
  const server = createHttpServer(opts.handler);
  const port = await listen(server, opts.port, opts.host);
  opts.logger.info({ port }, `${opts.name} listening`);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    try {
      await closeServer(server);
      for (const c of opts.closables) await c.stop();
      process.exit(0);
    } catch (err) {
      opts.logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  return port;
}

/** Prints a boot failure (e.g. a bad configuration listing every problem) and exits non-zero. */
export function exitOnBootFailure(err: unknown): never {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
