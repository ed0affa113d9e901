import type { OrgScope } from '@formgate/contracts';
import type { OrgRecord, OrgSettingsValues } from './records.ts';

/**
 * Each organization's record and its settings. Guarantees every adapter keeps:
 * - Every call is scoped: nothing of another organization is read, changed or deleted.
 * - `createOrganization` is idempotent: a redelivered creation never resets settings changed since.
 * - From `beginPurge` on, the organization reads as unknown (`getSettings`, `updateSettings` answer null) and the
 *   other ports refuse or take back their writes for it; after `purge` it is unknown, like one never created.
 *   `purgeOrganization` (use case) runs the steps of every port in order.
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
  /** Marks the organization deleted (the first step of a purge). Idempotent; nothing for an unknown one. */
  beginPurge(scope: OrgScope): Promise<void>;
  /** Deletes the organization's record and settings (the last step of a purge). Idempotent. */
  purge(scope: OrgScope): Promise<void>;
  close(): Promise<void>;
}
