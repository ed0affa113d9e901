import {
  mergeSpamSettings,
  type OrgScope,
  type SpamSettingsPatch,
  type SpamSettingsPatchView,
  spamSettingsView,
} from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import type { OrgSpamStore } from '../store/org-spam-store.ts';
import { orgNotFound } from './update-org-settings.ts';

/** The organization's spam defaults as the API shows them (captcha secret as null, `secretSet`). */
export async function readSpamDefaults(spam: OrgSpamStore, scope: OrgScope): Promise<SpamSettingsPatchView | null> {
  const current = await spam.getSpamSettings(scope);
  if (!current) throw orgNotFound();
  return spamSettingsView(current.spam);
}

/**
 * Merges a PATCH's `spam` into the organization's defaults (key by key; a captcha without a secret for the same
 * provider keeps the stored one; `null` drops them) and stores the result as a new version, which the relay
 * publishes on `orgs.settings`; this returns once it did (read your own settings), with the version to settle, or
 * throws 503 `UPSTREAM_UNAVAILABLE` when the log did not take it (stored all the same: it goes out on a later run).
 * A provider that needs a secret without one: 400 `VALIDATION_FAILED`. A concurrent change: tried again, then 409
 * `ORG_CONCURRENT_UPDATE`.
 */
export async function updateSpamDefaults(
  deps: { spam: OrgSpamStore; onSpamChanged: () => Promise<boolean> },
  scope: OrgScope,
  patch: SpamSettingsPatch | null,
): Promise<{ view: SpamSettingsPatchView | null; version: number }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const current = await deps.spam.getSpamSettings(scope);
    if (!current) throw orgNotFound();
    const { settings, missingSecret } = mergeSpamSettings(current.spam, patch);
    if (missingSecret) {
      throw new AppError('VALIDATION_FAILED', `spam.captcha.secret is required for ${missingSecret}`, {
        field: 'spam.captcha.secret',
        details: [{ path: 'spam.captcha.secret', message: `required for ${missingSecret}` }],
      });
    }
    if (await deps.spam.replaceSpamSettings(scope, settings, current.version)) {
      if (!(await deps.onSpamChanged())) {
        throw new AppError(
          'UPSTREAM_UNAVAILABLE',
          'The change is saved but not yet in force; repeat the request shortly',
        );
      }
      return { view: spamSettingsView(settings), version: current.version + 1 };
    }
  }
  throw new AppError('ORG_CONCURRENT_UPDATE');
}
