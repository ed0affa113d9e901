import { parseSettle, type Settle } from '@formgate/contracts';
import type { Request, Response } from 'express';
import type { FormsView } from './views/forms-view.ts';
import type { OrgSettingsView } from './views/org-settings-view.ts';

/** How long this instance waits for its view to reach a settle before saying it is behind. */
export const SETTLE_TIMEOUT_MS = 5_000;

export type Settled = (settle: Settle, timeoutMs?: number) => Promise<boolean>;

/**
 * Read your own settings (`SETTLE_HEADER`): resolves true once this instance's view of the form, or of the
 * organization's settings, holds the version the change was answered with, so that every submission it accepts
 * from then on is accepted under it; false when it does not within `timeoutMs`.
 */
export function createSettled(views: { forms: FormsView; orgSettings: OrgSettingsView }): Settled {
  return ({ view, id, version }, timeoutMs = SETTLE_TIMEOUT_MS) =>
    view === 'form' ? views.forms.until(id, version, timeoutMs) : views.orgSettings.until(id, version, timeoutMs);
}

/**
 * `GET /internal/settled?of=<settle>`: 204 once this instance's views hold the change, 503 when they did not within
 * `SETTLE_TIMEOUT_MS`, 400 for a malformed one. Called by the gateway on every ingest instance before it answers a
 * change of settings; it tells nothing but whether a version has arrived, and the gateway never routes `/internal/*`
 * from outside.
 */
export function settledRoute(settled: Settled) {
  return async (req: Request, res: Response) => {
    const settle = typeof req.query.of === 'string' ? parseSettle(req.query.of) : null;
    if (!settle) return void res.status(400).end();
    res.status((await settled(settle)) ? 204 : 503).end();
  };
}
