import type { OrgScope, SpamSettingsPatch } from '@formgate/contracts';
import type { OrgSpamSettings } from './records.ts';

/**
 * An organization's spam defaults (issue 14) and their outbox to `orgs.settings`. Guarantees every adapter keeps:
 * - They exist only for a known, live organization (`OrgsStore`): an unknown one, or one being purged, reads as
 *   `null` and takes no change.
 * - They are replaced whole and versioned: `replaceSpamSettings` applies only from the version read (a race
 *   answers false; of two changes from one version exactly one wins).
 * - A new version waits in the outbox (`listUnpublishedSpamSettings`) until `markSpamSettingsPublished` with that
 *   version or a newer one (an older mark never hides a newer version).
 */
export interface OrgSpamStore {
  /** The spam defaults of a known, live organization (version 0, `spam` null: never set); `null` otherwise. */
  getSpamSettings(scope: OrgScope): Promise<OrgSpamSettings | null>;
  /** Stores `spam` as version `expectedVersion + 1` if the stored version is `expectedVersion`; returns whether it did. */
  replaceSpamSettings(scope: OrgScope, spam: SpamSettingsPatch | null, expectedVersion: number): Promise<boolean>;
  /** Spam defaults whose current version is not confirmed published to `orgs.settings` (the outbox). */
  listUnpublishedSpamSettings(limit: number): Promise<OrgSpamSettings[]>;
  markSpamSettingsPublished(orgId: string, version: number): Promise<void>;
  /** Deletes every version and mark of the organization (a step of its purge). Idempotent. */
  purge(scope: OrgScope): Promise<void>;
  close(): Promise<void>;
}
