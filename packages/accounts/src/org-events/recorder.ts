import type { OrganizationEvent } from '@formgate/contracts';

/** An event without its envelope; the recorder adds id and time. */
export type OrgEventData<T extends OrganizationEvent['type']> = Extract<OrganizationEvent, { type: T }>['data'];

/** Where the hooks write lifecycle events: the outbox (`createOrgEventOutbox`). */
export interface OrgEventRecorder {
  /**
   * Records a change that happened. `organization.deleted` confirms the organization's deletion intents (their
   * event, with its id, becomes ready) and records a new event only when there is none.
   */
  <T extends OrganizationEvent['type']>(type: T, data: OrgEventData<T>): Promise<void>;
  /**
   * Records a deletion about to be made. The relay holds it until it is confirmed; if that never happens it
   * publishes it after a grace period when the organization is gone, and drops it when it is still there.
   */
  deletionIntent(data: OrgEventData<'organization.deleted'>): Promise<void>;
}
