import type { BlockedCounts } from './blocked-counts.ts';
import type { Erasures } from './erasures.ts';
import type { FormRepository } from './form-repository.ts';
import type { HeldSubmissions } from './held-submissions.ts';
import type { RetentionStore } from './retention.ts';
import type { SubmissionChanges } from './submission-changes.ts';
import type { SubmissionReadModel } from './submission-read-model.ts';

/**
 * The forms service's stores as one adapter builds them over one database (`createSqliteFormsStores`,
 * `createMongoFormsStores`), for the composition root to hand out: each use case and handler receives only the
 * ports it uses.
 */
export interface FormsStores {
  forms: FormRepository;
  submissions: SubmissionReadModel;
  changes: SubmissionChanges;
  held: HeldSubmissions;
  blocked: BlockedCounts;
  erasures: Erasures;
  retention: RetentionStore;
}

/** The scope the forms store's migrations are recorded under (ADR 72), in both adapters. */
export const FORMS_MIGRATION_SCOPE = 'forms';
