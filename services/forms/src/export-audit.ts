import { randomUUID } from 'node:crypto';
import type { EventPublisher } from '@formgate/bus';
import { encodeEvent, type OrganizationEvent, Topics } from '@formgate/contracts';
import type { Clock, Identity } from '@formgate/kit';

type ExportData = Omit<Extract<OrganizationEvent, { type: 'export.created' }>['data'], 'orgId' | 'actor'>;

/** Records, in the organization's audit log, that submissions are about to leave Formgate in bulk (issue 32). */
export type ExportAudit = (identity: Identity, data: ExportData) => Promise<void>;

/**
 * `export.created` on `orgs.organization`, acknowledged by the log before the export is sent: an export the log did
 * not take is refused (the bus's error, 503), never sent unaudited. The actor is the member, or the API key.
 */
export function createExportAudit(deps: { bus: EventPublisher; clock: Clock }): ExportAudit {
  return async (identity, data) => {
    await deps.bus.publish(Topics.orgsOrganization, [
      {
        key: identity.orgId,
        value: encodeEvent(Topics.orgsOrganization, {
          id: randomUUID(),
          type: 'export.created',
          version: 1,
          occurredAt: deps.clock.now().toISOString(),
          data: { orgId: identity.orgId, actor: { userId: identity.userId, email: identity.email }, ...data },
        }),
      },
    ]);
  };
}
