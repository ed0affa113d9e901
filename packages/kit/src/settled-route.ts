import { parseSettle, type Settle } from '@formgate/contracts';
import type { Request, Response } from 'express';

/**
 * `GET /internal/settled?of=<settle>` of a service whose views the gateway waits for before it answers a change of
 * settings (read your own settings, `SETTLE_HEADER`): 204 once `settled` says the views hold the change, 503 when
 * they did not in its time, 400 for a malformed one. It tells nothing but whether a version has arrived, and the
 * gateway never routes `/internal/*` from outside.
 */
export function settledRoute(settled: (settle: Settle) => Promise<boolean>) {
  return async (req: Request, res: Response) => {
    const settle = typeof req.query.of === 'string' ? parseSettle(req.query.of) : null;
    if (!settle) return void res.status(400).end();
    res.status((await settled(settle)) ? 204 : 503).end();
  };
}
