import type { OrgScope, SignedErasureReceipt } from '@formgate/contracts';

/** A submission an erasure found: what its receipt names. */
export interface FoundSubmission {
  id: string;
  formId: string;
  createdAt: string;
}

/**
 * Erasure by submitter (issue 31): the address index and the erasures' receipts. Guarantees every adapter keeps:
 * - `findByAddressKeys` answers every submission of the organization, held ones included, not deleted, stored with
 *   one of the keys (`SubmissionReadModel.insertSubmissions`, `addressKeys`); never another organization's; each
 *   once, oldest first.
 * - A deleted or erased submission is found no more (its keys go with its contents).
 * - Receipts are kept as given; `listReceipts` answers an organization's newest first, `getReceipt` only its own.
 * - A receipt is in the audit outbox from `saveReceipt` until `markAudited`: `listUnaudited` answers those, oldest
 *   first.
 */
export interface Erasures {
  findByAddressKeys(scope: OrgScope, keys: readonly string[]): Promise<FoundSubmission[]>;
  saveReceipt(signed: SignedErasureReceipt): Promise<void>;
  listReceipts(scope: OrgScope, limit: number): Promise<SignedErasureReceipt[]>;
  getReceipt(scope: OrgScope, id: string): Promise<SignedErasureReceipt | null>;
  /**
   * After submissions were erased: drops what the store still keeps of them in its indexes and free space, where
   * it can (SQLite: the search index is rebuilt without their words, the WAL checkpointed into the file and
   * truncated; with `secure_delete` no byte of them is left). A no-op where the database does it itself or cannot
   * be asked to (MongoDB, FerretDB: `docs/privacy.md`).
   */
  compact(): Promise<void>;
  /** Receipts whose audit entry (`erasure.completed`) is not yet published, oldest first. */
  listUnaudited(limit: number): Promise<SignedErasureReceipt[]>;
  markAudited(id: string): Promise<void>;
}
