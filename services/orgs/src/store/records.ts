import type { SpamSettingsPatch } from '@formgate/contracts';

export interface OrgRecord {
  orgId: string;
  name: string;
  slug: string;
  /** True only while a purge is under way (adapters without transactions purge in steps): treat it as gone. */
  deleted: boolean;
}

/** The organization settings of the spec (§3), every key present. */
export interface OrgSettingsValues {
  submission_notification_email: string | null;
  email_management: boolean;
}

export const DEFAULT_ORG_SETTINGS: OrgSettingsValues = {
  submission_notification_email: null,
  email_management: false,
};

export interface AuditActor {
  userId: string;
  email: string | null;
}

/** One audit log entry: what happened to the organization, by whom. `data` holds a summary, never a secret. */
export interface AuditEntry {
  /** The id of the event it records. */
  id: string;
  type: string;
  actor: AuditActor | null;
  /** ISO-8601 UTC with milliseconds; the sort key of the log, with `id` as the tie-breaker. */
  occurredAt: string;
  data: Record<string, string>;
}

/** A position in the newest-first log: the last entry of the previous page. */
export interface AuditCursor {
  occurredAt: string;
  id: string;
}

/** An organization's spam defaults (issue 14): `version` 0 = never set. */
export interface OrgSpamSettings {
  orgId: string;
  spam: SpamSettingsPatch | null;
  version: number;
}
