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

/** Mutations accept JSON only: a form post or `text/plain` from another site cannot reach them (CSRF). */
export function assertJsonMutation(req: Request): void {
  if (['GET', 'HEAD', 'OPTIONS', 'DELETE'].includes(req.method) || req.is('application/json')) return;
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
