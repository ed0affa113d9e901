import {
  mergeSpamSettings,
  type OrgScope,
  type SpamSettingsPatch,
  type SpamSettingsPatchView,
  spamSettingsView,
} from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import type { OrgsStore } from '../store/orgs-store.ts';
import { orgNotFound } from './update-org-settings.ts';

/** The organization's spam defaults as the API shows them (captcha secret as null, `secretSet`). */
export async function readSpamDefaults(store: OrgsStore, scope: OrgScope): Promise<SpamSettingsPatchView | null> {
  const current = await store.getSpamSettings(scope);
  if (!current) throw orgNotFound();
  return spamSettingsView(current.spam);
}

/**
 * Merges a PATCH's `spam` into the organization's defaults (key by key; a captcha without a secret for the same
 * provider keeps the stored one; `null` drops them) and stores the result as a new version, which the relay
 * publishes on `orgs.settings`: once this returns, the change will be published. A provider that needs a secret
 * without one: 400 `VALIDATION_FAILED`. A concurrent change: tried again, then 409 `ORG_CONCURRENT_UPDATE`.
 */
export async function updateSpamDefaults(
  deps: { store: OrgsStore; onSpamChanged: () => void },
  scope: OrgScope,
  patch: SpamSettingsPatch | null,
): Promise<SpamSettingsPatchView | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const current = await deps.store.getSpamSettings(scope);
    if (!current) throw orgNotFound();
    const { settings, missingSecret } = mergeSpamSettings(current.spam, patch);
    if (missingSecret) {
      throw new AppError('VALIDATION_FAILED', `spam.captcha.secret is required for ${missingSecret}`, {
        field: 'spam.captcha.secret',
        details: [{ path: 'spam.captcha.secret', message: `required for ${missingSecret}` }],
      });
    }
    if (await deps.store.replaceSpamSettings(scope, settings, current.version)) {
      deps.onSpamChanged();
      return spamSettingsView(settings);
    }
  }
  throw new AppError('ORG_CONCURRENT_UPDATE');
}
