import { Topics } from '@formgate/contracts';
import type { BetterAuthPlugin } from 'better-auth';

export const OUTBOX_MODEL = 'orgEventOutbox';
export const LEASE_MODEL = 'orgEventRelayLease';
/** The topics the outbox publishes to. */
export const OUTBOX_TOPICS = [Topics.orgsOrganization, Topics.billingSubscription] as const;
export type OutboxTopic = (typeof OUTBOX_TOPICS)[number];

/**
 * Declares the outbox and the relay lease in better-auth's own database, so its migrations create them on SQLite
 * and its MongoDB adapter writes them like any of its models.
 */
export function orgEventOutboxPlugin() {
  return {
    id: 'formgate-org-event-outbox',
    schema: {
      [OUTBOX_MODEL]: {
        fields: {
          /**
           * The relay's sort key, a uuid v7 taken when the row is written (time-ordered, so the relay publishes in
           * the order the changes happened). It is the event's id, except for a confirmed deletion (see `state`).
           */
          eventId: { type: 'string', required: true, index: true },
          orgId: { type: 'string', required: true },
          payload: { type: 'string', required: true },
          /**
           * `ready`, or `intent`: an `organization.deleted` written before the deletion, published only once
           * confirmed or, after a grace period, if the organization is gone.
           */
          state: { type: 'string', required: true },
          /** When the row was written (epoch ms, the writer's clock): an intent's age. */
          recordedAt: { type: 'number', required: true },
          /** The topic to publish to: `orgs.organization` or `billing.subscription` (`OUTBOX_TOPICS`). */
          topic: { type: 'string', required: true },
        },
      },
      [LEASE_MODEL]: {
        fields: {
          /** One row per holder in turn, id `relay-lease-<generation>`; the highest generation is the lease. */
          generation: { type: 'number', required: true },
          holder: { type: 'string', required: true },
          /** Epoch ms (the holder's clock) after which another relay may take the next generation. */
          expiresAt: { type: 'number', required: true },
        },
      },
    },
  } satisfies BetterAuthPlugin;
}

export interface Where {
  field: string;
  value: string | number | string[] | null;
  operator?: 'eq' | 'in' | 'lt';
  connector?: 'AND' | 'OR';
}

/** The part of better-auth's database adapter (`(await auth.$context).adapter`) the outbox and its lease use. */
export interface OutboxAdapter {
  create<T = unknown>(input: { model: string; data: Record<string, unknown>; forceAllowId?: boolean }): Promise<T>;
  findOne<T>(input: { model: string; where: Where[] }): Promise<T | null>;
  findMany<T>(input: {
    model: string;
    where?: Where[];
    limit?: number;
    sortBy?: { field: string; direction: 'asc' | 'desc' };
  }): Promise<T[]>;
  /** Updates the first row matching `where`; resolves to it, or `null` when none matched. */
  update<T>(input: { model: string; where: Where[]; update: Record<string, unknown> }): Promise<T | null>;
  deleteMany(input: { model: string; where: Where[] }): Promise<number>;
}

export interface OutboxRow {
  id: string;
  eventId: string;
  orgId: string;
  payload: string;
  state: 'ready' | 'intent';
  recordedAt: number;
  topic: OutboxTopic;
}
