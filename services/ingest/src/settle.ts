import type { Settle } from '@formgate/contracts';
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
