import type { WebhookEventType, WebhookKind } from '@formgate/contracts';

/** A webhook endpoint of a form. `secret` signs every delivery: it never leaves the service after its creation. */
export interface WebhookEndpoint {
  id: string;
  orgId: string;
  formId: string;
  url: string;
  kind: WebhookKind;
  events: WebhookEventType[];
  enabled: boolean;
  /** Why the service disabled it; null when enabled or disabled by a person. */
  disabledReason: string | null;
  /** When it was created or last (re-)enabled: failures before this moment do not count towards disabling it. */
  enabledAt: string;
  secret: string;
  /** The secret a rotation replaced: it signs too until `expiresAt`. */
  previousSecret: { secret: string; expiresAt: string } | null;
  createdAt: string;
  updatedAt: string;
}

/** What `update` may change. */
export type WebhookEndpointChanges = Partial<
  Pick<
    WebhookEndpoint,
    'url' | 'kind' | 'events' | 'enabled' | 'disabledReason' | 'enabledAt' | 'secret' | 'previousSecret'
  >
> & { updatedAt: string };

/** Every call is scoped to one organization: another organization's endpoint is never seen, changed or removed. */
export interface OrgScope {
  orgId: string;
}

/**
 * Webhook endpoints. Guarantees every adapter keeps (checked by `webhook-endpoint-store.contract.ts`):
 *
 * - `create` stores the endpoint unless its form already has `limit` endpoints: the limit holds however many
 *   instances create at once (a unique insert of one of the form's `limit` slots, not a count then an insert).
 * - `get`, `listByForm`, `update` and `remove` see only endpoints of `scope.orgId`; `listByForm` is oldest first.
 * - `update` sets the given fields and returns the endpoint as it is afterwards (null: none in scope). Concurrent
 *   updates of one endpoint: the last one wins per field (no conditional update: FerretDB's are not atomic).
 * - `remove` frees the endpoint's slot: another can be created in its place.
 * - `claimNotice(key)` answers true to exactly one caller per key, however many instances call it at once (a
 *   unique insert): who tells the organization that an endpoint was disabled.
 */
export interface WebhookEndpointStore {
  create(endpoint: WebhookEndpoint, options: { limit: number }): Promise<'created' | 'limit-reached'>;
  get(scope: OrgScope, id: string): Promise<WebhookEndpoint | null>;
  listByForm(scope: OrgScope, formId: string): Promise<WebhookEndpoint[]>;
  update(scope: OrgScope, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpoint | null>;
  remove(scope: OrgScope, id: string): Promise<boolean>;
  claimNotice(key: string): Promise<boolean>;
}

/** The changes without the keys that are present but undefined (they change nothing). */
export const definedChanges = (changes: WebhookEndpointChanges): WebhookEndpointChanges =>
  Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as WebhookEndpointChanges;
