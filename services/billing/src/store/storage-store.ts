import type { FreedSubmission, StoredFiles } from './records.ts';

/**
 * The storage ledger: how many bytes of uploaded files each organization keeps (issue 13). Guarantees every adapter
 * keeps:
 * - `record` is idempotent by submission id (a redelivery never counts twice), and ignores submissions without
 *   bytes.
 * - A freed submission stays freed: `free` before `record` (its deletion consumed before its arrival, they come from
 *   different topics) leaves it uncounted; so does `freeForm` for every submission of the form, recorded before or
 *   after, and `purgeOrganization` for every submission of the organization.
 * - `usedBytes` is the sum of the organization's recorded, not freed submissions; never another organization's.
 */
export interface StorageStore {
  record(entries: StoredFiles[]): Promise<void>;
  free(entries: FreedSubmission[]): Promise<void>;
  /** The form was deleted with its submissions and files. */
  freeForm(scope: { orgId: string }, formId: string): Promise<void>;
  usedBytes(scope: { orgId: string }): Promise<number>;
  purgeOrganization(scope: { orgId: string }): Promise<void>;
  close(): Promise<void>;
}
