import type { OrganizationEvent } from '@formgate/contracts';
import type { OrgsStores } from '../store/orgs-stores.ts';
import { DEFAULT_ORG_SETTINGS, type NewAuditEntry } from '../store/records.ts';
import { purgeOrganization } from './purge-organization.ts';

/**
 * The event fields an audit entry keeps. A field is listed here only once it is known to hold no secret, so one
 * added to an event later (an invitation token, say) stays out of the log until someone decides otherwise.
 */
const SUMMARY_FIELDS = [
  'name',
  'slug',
  'memberId',
  'userId',
  'role',
  'previousRole',
  'invitationId',
  'email',
  'expiresAt',
  'teamId',
  'erasureId',
  'addressKey',
  'count',
  'requireTwoFactor',
  'requireSso',
  'providerId',
  'domain',
  'method',
  'reason',
  'keyId',
  'scope',
  'plan',
  'status',
  'kind',
  'formId',
  'format',
  'source',
  'passkeyId',
] as const;

/** Sortable timestamps: the log pages on `occurredAt` as a string. */
function normalizeTime(value: string): string {
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? value : time.toISOString();
}

export function toAuditEntry(event: OrganizationEvent): NewAuditEntry {
  const fields = event.data as Record<string, unknown>;
  const data: Record<string, string> = {};
  for (const key of SUMMARY_FIELDS) {
    const value = fields[key];
    if (typeof value === 'string') data[key] = value;
  }
  const { actor } = event.data;
  return {
    id: event.id,
    type: event.type,
    actor: actor ? { userId: actor.userId, email: actor.email } : null,
    occurredAt: normalizeTime(event.occurredAt),
    data,
  };
}

/**
 * Applies one event of `orgs.organization`. Idempotent: every effect can be repeated (create-if-absent, set,
 * purge) and the audit entry is keyed by the event id. The effect comes before the entry, so a crash in between
 * is repaired by the redelivery.
 */
export async function applyOrganizationEvent(stores: OrgsStores, event: OrganizationEvent): Promise<void> {
  const { orgs, audit } = stores;
  const scope = { orgId: event.data.orgId };
  switch (event.type) {
    case 'organization.created':
      await orgs.createOrganization(scope, { name: event.data.name, slug: event.data.slug }, DEFAULT_ORG_SETTINGS);
      break;
    case 'organization.updated':
      await orgs.updateOrganization(scope, { name: event.data.name, slug: event.data.slug });
      break;
    case 'organization.deleted':
      // The organization is gone: its own entry would be purged with the rest of the log.
      await purgeOrganization(stores, scope);
      return;
  }
  // Events of one organization arrive in order, one at a time: a late event of a purged organization (a member
  // removed while it was being deleted) finds no record here and leaves nothing behind.
  const org = await orgs.getOrganization(scope);
  if (!org || org.deleted) return;
  await audit.appendAudit(scope, toAuditEntry(event));
}
