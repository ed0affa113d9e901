import type { BusMessage } from '@formgate/bus';
import { decodeEvent, type SpamSettingsPatch, Topics } from '@formgate/contracts';
import { createVersionWaits } from './version-waits.ts';

/**
 * Ingest's in-memory view of `orgs.settings` (an organization's spam defaults), by organization id. Built by
 * replaying the compacted topic at start and kept current by following it; the highest `version` wins, so a
 * replayed or reordered older record never overwrites a newer one. Never a database call per request.
 */
export function createOrgSettingsView() {
  const byOrg = new Map<string, { spam: SpamSettingsPatch | null; version: number }>();
  const waits = createVersionWaits();
  return {
    apply(message: BusMessage) {
      const event = decodeEvent(Topics.orgsSettings, message.value);
      const { orgId, spam, version } = event.data;
      if ((byOrg.get(orgId)?.version ?? 0) >= version) return;
      byOrg.set(orgId, { spam, version });
      waits.reached(orgId, version);
    },
    /** The organization's spam defaults (keys it set), or null: none set. */
    spamDefaults(orgId: string): SpamSettingsPatch | null {
      return byOrg.get(orgId)?.spam ?? null;
    },
    /** Resolves true once the view holds `version` of the organization's settings or a later one; false at the timeout. */
    until: (orgId: string, version: number, timeoutMs: number) =>
      waits.until(orgId, version, byOrg.get(orgId)?.version ?? 0, timeoutMs),
    get size() {
      return byOrg.size;
    },
  };
}

export type OrgSettingsView = ReturnType<typeof createOrgSettingsView>;
