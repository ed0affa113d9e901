import type { Express, NextFunction, Request, Response } from 'express';
import { AppError } from './errors.ts';

/**
 * What every service's `createService(deps)` returns. Building one has no side effects: nothing listens,
 * subscribes or writes until `start()`.
 */
export interface Service {
  name: string;
  /** The service's HTTP routes (mounted in-process by the embedded host, or served by its own `main.ts`). */
  app: Express;
  /** Creates topics, starts consumers and views; resolves when the service is ready to serve. */
  start(): Promise<void>;
  /** Stops consumers (draining in-flight batches) and timers. */
  stop(): Promise<void>;
}

/**
 * Mutations accept JSON only: a form post or `text/plain` from another site cannot reach them (CSRF). A request with
 * no body at all (no content type, no length or 0, not chunked) passes too: an action that takes no parameters
 * (rotate a secret, resend a delivery) needs none, and a browser's cross-site form always sends a content type.
 */
export function assertJsonMutation(req: Request): void {
  if (['GET', 'HEAD', 'OPTIONS', 'DELETE'].includes(req.method) || req.is('application/json')) return;
  const { 'content-type': type, 'content-length': length, 'transfer-encoding': chunked } = req.headers;
  if (type === undefined && chunked === undefined && (length === undefined || length === '0')) return;
  throw new AppError('UNSUPPORTED_MEDIA_TYPE');
}

/** `assertJsonMutation` as Express middleware. */
export function requireJson(req: Request, _res: Response, next: NextFunction) {
  try {
    assertJsonMutation(req);
    next();
  } catch (err) {
    next(err);
  }
}
