import type { OrgScope, SpamSettingsPatch } from '@formgate/contracts';

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

/**
 * The orgs service's data: each organization's record, its settings, and its append-only audit log.
 * Guarantees every adapter keeps:
 * - Every call is scoped: nothing of another organization is read, changed or deleted.
 * - `createOrganization` and `appendAudit` are idempotent (by organization, by entry id): a redelivered event
 *   neither resets settings changed since nor adds a second entry.
 * - After `purge` nothing of the organization is left; it is then unknown, like one never created.
 * - Spam defaults (issue 14) are replaced whole and versioned: `replaceSpamSettings` applies only from the version
 *   read (a race answers false), and the new version waits in the outbox (`listUnpublishedSpamSettings`) until
 *   `markSpamSettingsPublished` with that version (an older mark never hides a newer version).
 */
export interface OrgsStore {
  /** Stores the organization with `settings`, unless it is already known (then nothing changes). */
  createOrganization(
    scope: OrgScope,
    record: { name: string; slug: string },
    settings: OrgSettingsValues,
  ): Promise<void>;
  /** Renames a known organization; does nothing for an unknown one. */
  updateOrganization(scope: OrgScope, record: { name: string; slug: string }): Promise<void>;
  getOrganization(scope: OrgScope): Promise<OrgRecord | null>;
  /** `null` when the organization is unknown or being purged. */
  getSettings(scope: OrgScope): Promise<OrgSettingsValues | null>;
  /** Sets the given keys and returns every setting; `null` (and no change) when the organization is unknown. */
  updateSettings(scope: OrgScope, patch: Partial<OrgSettingsValues>): Promise<OrgSettingsValues | null>;
  /** Appends an entry unless one with its id exists; returns whether it did. */
  appendAudit(scope: OrgScope, entry: AuditEntry): Promise<boolean>;
  /** Newest first (`occurredAt`, then `id`, descending), strictly after `after` when given. */
  listAudit(scope: OrgScope, page: { limit: number; after?: AuditCursor }): Promise<AuditEntry[]>;
  /** The spam defaults of a known, live organization; `null` otherwise. */
  getSpamSettings(scope: OrgScope): Promise<OrgSpamSettings | null>;
  /** Stores `spam` as version `expectedVersion + 1` if the stored version is `expectedVersion`; returns whether it did. */
  replaceSpamSettings(scope: OrgScope, spam: SpamSettingsPatch | null, expectedVersion: number): Promise<boolean>;
  /** Spam defaults whose current version is not confirmed published to `orgs.settings` (the outbox). */
  listUnpublishedSpamSettings(limit: number): Promise<OrgSpamSettings[]>;
  markSpamSettingsPublished(orgId: string, version: number): Promise<void>;
  /** Deletes the organization's record, settings and audit log. Idempotent. */
  purge(scope: OrgScope): Promise<void>;
  close(): Promise<void>;
}
