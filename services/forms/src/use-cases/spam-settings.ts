import {
  type FormSettings,
  mergeSpamSettings,
  type SpamSettingsPatch,
  type SpamSettingsPatchView,
  spamSettingsView,
} from '@formgate/contracts';
import { AppError } from '@formgate/kit';

/** A form's settings as the API shows them: the captcha secret replaced by `secretSet` (issue 14). */
export function publicSettings(
  settings: FormSettings,
): Omit<FormSettings, 'spam'> & { spam: SpamSettingsPatchView | null } {
  return { ...settings, spam: spamSettingsView(settings.spam ?? null) };
}

/**
 * A PATCH's `settings.spam` over the form's (key by key, the stored captcha secret kept when the PATCH names the
 * same provider without one). A provider that needs a secret and has none is refused: 400 `VALIDATION_FAILED`.
 */
export function mergeFormSpam(
  current: SpamSettingsPatch | null,
  patch: SpamSettingsPatch | null | undefined,
): SpamSettingsPatch | null {
  const { settings, missingSecret } = mergeSpamSettings(current, patch);
  if (missingSecret) {
    throw new AppError('VALIDATION_FAILED', `settings.spam.captcha.secret is required for ${missingSecret}`, {
      field: 'settings.spam.captcha.secret',
      details: [{ path: 'settings.spam.captcha.secret', message: `required for ${missingSecret}` }],
    });
  }
  return settings;
}
