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

/** One audit log entry as it is appended: what happened to the organization, by whom. `data` holds a summary, never a secret. */
export interface NewAuditEntry {
  /** The id of the event it records. */
  id: string;
  type: string;
  actor: AuditActor | null;
  /** ISO-8601 UTC with milliseconds; the sort key of the log, with `id` as the tie-breaker. */
  occurredAt: string;
  data: Record<string, string>;
}

/** An entry as it is stored: with its place in the organization's hash chain (`@formgate/contracts` audit-chain). */
export interface AuditEntry extends NewAuditEntry {
  /** 1 for the organization's first entry, then one more per entry, in the order they were appended. */
  seq: number;
  /** The previous entry's `hash` (`AUDIT_GENESIS` for the first). */
  prevHash: string;
  /** SHA-256 (hex) of `auditHashInput` of this entry. */
  hash: string;
}

/** A position in the newest-first log: the last entry of the previous page. */
export interface AuditCursor {
  occurredAt: string;
  id: string;
}

/** What a page of the log is narrowed to; every condition must hold. */
export interface AuditFilter {
  /** Entry types (`member.added`, …): any of them. */
  types?: string[];
  /** The actor's email, exactly (case-insensitive). */
  actorEmail?: string;
  /** `occurredAt` ≥ `from` and < `to` (ISO-8601 UTC). */
  from?: string;
  to?: string;
}

/** An organization's spam defaults (issue 14): `version` 0 = never set. */
export interface OrgSpamSettings {
  orgId: string;
  spam: SpamSettingsPatch | null;
  version: number;
}
