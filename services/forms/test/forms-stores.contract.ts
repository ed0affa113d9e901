import { type ContractIt, type ContractSkip, describeContract } from '@formgate/kit/testing';
import { beforeAll } from 'vitest';
import type { FormsStores } from '../src/store/forms-stores.ts';
import { blockedCountsContract } from './blocked-counts.contract.ts';
import { erasuresContract } from './erasures.contract.ts';
import { formRepositoryContract } from './form-repository.contract.ts';
import { heldSubmissionsContract } from './held-submissions.contract.ts';
import { retentionContract } from './retention.contract.ts';
import { submissionChangesContract } from './submission-changes.contract.ts';
import { submissionReadModelContract } from './submission-read-model.contract.ts';

export interface FormsStoresTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  /** The export is in storage order, not list order (FerretDB 1.24, ADR 0022): compare it as a set. */
  unorderedExport?: boolean;
  name: string;
  /** The adapter's stores over a migrated database (shared by the tests of one port: each uses its own org). */
  create: () => Promise<FormsStores>;
}

type PortContract = (it: ContractIt, stores: () => FormsStores, target: FormsStoresTarget) => void;

const CONTRACTS: [string, PortContract][] = [
  ['FormRepository', formRepositoryContract],
  ['SubmissionReadModel', submissionReadModelContract],
  ['SubmissionChanges', submissionChangesContract],
  ['HeldSubmissions', heldSubmissionsContract],
  ['BlockedCounts', blockedCountsContract],
  ['Erasures', erasuresContract],
  ['RetentionStore', retentionContract],
];

/** One contract suite per port of the forms store, each run against `target`'s adapter. */
export function runFormsStoresContracts(target: FormsStoresTarget) {
  for (const [port, contract] of CONTRACTS) {
    describeContract(`${port} contract: ${target.name}`, target.skip, (it) => {
      let stores: FormsStores;
      beforeAll(async () => {
        stores = await target.create();
      });
      contract(it, () => stores, target);
    });
  }
}
