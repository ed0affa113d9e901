import type { OrgScope } from '@formgate/contracts';
import type { AuditCursor, AuditEntry, AuditFilter, NewAuditEntry } from './records.ts';

/**
 * Each organization's append-only audit log, a hash chain (`@formgate/contracts` audit-chain). Guarantees every
 * adapter keeps:
 * - Every call is scoped: nothing of another organization is read or deleted.
 * - `appendAudit` is idempotent by entry id: a redelivered event adds no second entry.
 * - Appended entries are numbered 1, 2, 3… per organization, each chained to the one before (`chainAuditEntry`);
 *   two appends racing for the same number never both succeed (one fails and is retried, or finds its id there).
 * - `listAudit` pages newest first (`occurredAt`, then `id`, descending) with a keyset cursor, narrowed by a filter.
 * - `readChain` reads the chain in order, after a given `seq`.
 */
export interface AuditStore {
  /** Appends an entry at the end of the organization's chain unless one with its id exists; returns whether it did. */
  appendAudit(scope: OrgScope, entry: NewAuditEntry): Promise<boolean>;
  /** Newest first (`occurredAt`, then `id`, descending), strictly after `after` when given. */
  listAudit(scope: OrgScope, page: { limit: number; after?: AuditCursor; filter?: AuditFilter }): Promise<AuditEntry[]>;
  /** The chain in order: up to `limit` entries with `seq` > `afterSeq`. */
  readChain(scope: OrgScope, page: { afterSeq: number; limit: number }): Promise<AuditEntry[]>;
  /** Deletes the organization's whole log (a step of its purge). Idempotent. */
  purge(scope: OrgScope): Promise<void>;
  close(): Promise<void>;
}
