import type { OrgScope, WebhookDisabling, WebhookEndpoint, WebhookEndpointChanges } from './records.ts';

/** The key of the disabling of endpoint `id` as enabled at `enabledAt` (the notice's claim is keyed the same). */
export const disablingKey = (id: string, enabledAt: string) => `disabled:${id}:${enabledAt}`;

/**
 * An endpoint as read, from what the person's writes stored (`stored`) and the service's disabling for the stored
 * `enabledAt`, if any. A stored `enabled: false` is a person's (its `disabledReason` null), or, in endpoints stored
 * before disablings were records of their own, the service's with its `disabledReason`: both read as stored.
 */
export function withDisabling(stored: WebhookEndpoint, disabling: WebhookDisabling | undefined): WebhookEndpoint {
  // Endpoints stored before revisions were counted are at revision 0.
  const endpoint = { ...stored, revision: stored.revision ?? 0 };
  if (!endpoint.enabled) return { ...endpoint, disabledReason: endpoint.disabledReason ?? null };
  if (!disabling) return { ...endpoint, disabledReason: null };
  const updatedAt = disabling.at.localeCompare(endpoint.updatedAt) > 0 ? disabling.at : endpoint.updatedAt;
  return { ...endpoint, enabled: false, disabledReason: disabling.reason, updatedAt };
}

/**
 * Webhook endpoints. Guarantees every adapter keeps (checked by `webhook-endpoints.contract.ts`):
 *
 * - `create` stores the endpoint unless its form already has `limit` endpoints: the limit holds however many
 *   instances create at once (a unique insert of one of the form's `limit` slots, not a count then an insert).
 * - `get`, `listByForm`, `update` and `remove` see only endpoints of `scope.orgId`; `listByForm` is oldest first.
 * - `update` (a person's change) sets the given fields on the endpoint as it was at `basedOn.revision`, stores it
 *   as the next revision and returns the endpoint as it is afterwards (null: none in scope). Giving `enabled` clears
 *   a `disabledReason`. `'conflict'` when the endpoint is no longer at that revision: of concurrent updates based on
 *   one revision exactly one is stored (a unique insert of the next revision on MongoDB, where FerretDB's updates
 *   are not atomic), however many instances update at once; none loses another's fields.
 * - `disable` (the service's, after deliveries failed) never writes what `update` writes: it records the disabling
 *   of the endpoint as enabled at `endpoint.enabledAt` (insert-only, keyed by `disablingKey`), so it can neither
 *   undo a person's concurrent change (URL, events, secret) nor outlive a re-enabling (`update` with `enabled: true`
 *   and a new `enabledAt`). The endpoint then reads `enabled: false` with the reason, unless a person disabled it
 *   (reason null). True to exactly one caller per key; the first reason stays.
 * - `remove` frees the endpoint's slot: another can be created in its place.
 * - `claimNotice(key)` answers true to exactly one caller per key, however many instances call it at once (a
 *   unique insert): who tells the organization that an endpoint was disabled.
 */
export interface WebhookEndpointStore {
  create(endpoint: WebhookEndpoint, options: { limit: number }): Promise<'created' | 'limit-reached'>;
  get(scope: OrgScope, id: string): Promise<WebhookEndpoint | null>;
  listByForm(scope: OrgScope, formId: string): Promise<WebhookEndpoint[]>;
  update(
    scope: OrgScope,
    id: string,
    changes: WebhookEndpointChanges,
    basedOn: { revision: number },
  ): Promise<WebhookEndpoint | null | 'conflict'>;
  disable(
    endpoint: Pick<WebhookEndpoint, 'id' | 'orgId' | 'formId' | 'enabledAt'>,
    disabling: WebhookDisabling,
  ): Promise<boolean>;
  remove(scope: OrgScope, id: string): Promise<boolean>;
  claimNotice(key: string): Promise<boolean>;
}

/**
 * What `update` stores: the changes without the keys that are present but undefined (they change nothing), and a
 * null `disabledReason` when `enabled` is given (a person's choice clears a reason stored before disablings were
 * records of their own).
 */
export const definedChanges = (changes: WebhookEndpointChanges): WebhookEndpointChanges & { disabledReason?: null } => {
  const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  return { ...defined, ...(changes.enabled === undefined ? {} : { disabledReason: null }) } as WebhookEndpointChanges;
};
