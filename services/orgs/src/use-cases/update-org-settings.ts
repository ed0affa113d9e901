import type { OrgScope, OrgSettings } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import type { OrgsStore } from '../store/orgs-store.ts';
import type { OrgSettingsValues } from '../store/records.ts';

export const orgNotFound = () => new AppError('ORG_NOT_FOUND');

/** Sets the keys present in `patch` (an absent key keeps its value; `null` clears the notification email). */
export async function updateOrgSettings(
  store: OrgsStore,
  scope: OrgScope,
  patch: OrgSettings,
): Promise<OrgSettingsValues> {
  const changes: Partial<OrgSettingsValues> = {};
  if (patch.submission_notification_email !== undefined) {
    changes.submission_notification_email = patch.submission_notification_email;
  }
  if (patch.email_management !== undefined) changes.email_management = patch.email_management;
  const settings = await store.updateSettings(scope, changes);
  if (!settings) throw orgNotFound();
  return settings;
}
