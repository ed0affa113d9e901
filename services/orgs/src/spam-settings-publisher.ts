import type { EventPublisher } from '@formgate/bus';
import { encodeEvent, Topics } from '@formgate/contracts';
import { type Clock, createRelayLoop, type Logger } from '@formgate/kit';
import type { OrgSpamStore } from './store/org-spam-store.ts';

type Deps = { spam: OrgSpamStore; bus: EventPublisher; clock: Clock; logger: Logger };

/** One pass: every organization whose spam defaults changed is published (`org.settings-changed`), then marked. */
export async function publishSpamSettings(deps: Deps): Promise<number> {
  const pending = await deps.spam.listUnpublishedSpamSettings(200);
  if (pending.length === 0) return 0;
  const occurredAt = deps.clock.now().toISOString();
  await deps.bus.publish(
    Topics.orgsSettings,
    pending.map(({ orgId, spam, version }) => ({
      key: orgId,
      value: encodeEvent(Topics.orgsSettings, {
        // Deterministic: a version published twice (a crash before the mark) is one event to consumers.
        id: `org-settings:${orgId}:${version}`,
        type: 'org.settings-changed',
        version: 1,
        occurredAt,
        data: { orgId, spam, version },
      }),
    })),
  );
  for (const { orgId, version } of pending) await deps.spam.markSpamSettingsPublished(orgId, version);
  return pending.length;
}

/**
 * The outbox relay for `orgs.settings` (compacted, keyed by organization): an organization's spam defaults are
 * stored with a version and an outbox marker, then published whole until the log acknowledged them. Consumers
 * (ingest's view) keep the highest version.
 */
export function createSpamSettingsPublisher(deps: Deps) {
  const loop = createRelayLoop({
    pass: async () => (await publishSpamSettings(deps)) > 0,
    intervalMs: 5_000,
    onError: (err) => deps.logger.warn({ err }, 'org settings publish failed; will retry'),
  });
  return { kick: loop.kick, start: loop.start, stop: loop.stop };
}
