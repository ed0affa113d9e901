import type { BusMessage } from '@formgate/bus';
import { decodeEvent, type SpamSettingsPatch, Topics } from '@formgate/contracts';

/**
 * Ingest's in-memory view of `orgs.settings` (an organization's spam defaults), by organization id. Built by
 * replaying the compacted topic at start and kept current by following it; the highest `version` wins, so a
 * replayed or reordered older record never overwrites a newer one. Never a database call per request.
 */
export function createOrgSettingsView() {
  const byOrg = new Map<string, { spam: SpamSettingsPatch | null; version: number }>();
  return {
    apply(message: BusMessage) {
      const event = decodeEvent(Topics.orgsSettings, message.value);
      const { orgId, spam, version } = event.data;
      if ((byOrg.get(orgId)?.version ?? 0) >= version) return;
      byOrg.set(orgId, { spam, version });
    },
    /** The organization's spam defaults (keys it set), or null: none set. */
    spamDefaults(orgId: string): SpamSettingsPatch | null {
      return byOrg.get(orgId)?.spam ?? null;
    },
    get size() {
      return byOrg.size;
    },
  };
}

export type OrgSettingsView = ReturnType<typeof createOrgSettingsView>;
