import type { OrgScope } from '@formgate/contracts';
import type { AuditCursor, AuditEntry } from './records.ts';

/**
 * Each organization's append-only audit log. Guarantees every adapter keeps:
 * - Every call is scoped: nothing of another organization is read or deleted.
 * - `appendAudit` is idempotent by entry id: a redelivered event adds no second entry.
 * - `listAudit` pages newest first (`occurredAt`, then `id`, descending) with a keyset cursor.
 */
export interface AuditStore {
  /** Appends an entry unless one with its id exists; returns whether it did. */
  appendAudit(scope: OrgScope, entry: AuditEntry): Promise<boolean>;
  /** Newest first (`occurredAt`, then `id`, descending), strictly after `after` when given. */
  listAudit(scope: OrgScope, page: { limit: number; after?: AuditCursor }): Promise<AuditEntry[]>;
  /** Deletes the organization's whole log (a step of its purge). Idempotent. */
  purge(scope: OrgScope): Promise<void>;
  close(): Promise<void>;
}
