import { type MongoDb, type PageRead, pageLayout, pageReadFor } from '@formgate/store/mongo';
import type { FormsStores } from '../forms-stores.ts';
import { createMongoBlockedCounts } from './blocked-counts.ts';
import { createMongoErasures } from './erasures.ts';
import { createMongoFormRepository } from './form-repository.ts';
import { createMongoHeldSubmissions } from './held-submissions.ts';
import { createMongoRetention } from './retention.ts';
import { createMongoSubmissionChanges } from './submission-changes.ts';
import { createMongoSubmissionReadModel } from './submission-read-model.ts';

export interface MongoFormsStoresOptions {
  /** Tests only: the width of the page buckets (`pageLayout`); it must stay the same for the life of a database. */
  pageWidth?: number;
  /** Tests only: how filtered pages are read, chosen by the server otherwise (`pageReadFor`). */
  pageRead?: PageRead;
  /** Tests only: when a form replacement's claim counts as abandoned. */
  claimAbandonedMs?: number;
}

/**
 * The forms stores on a MongoDB 7+ or FerretDB 1.24 database whose migrations have run (`mongoFormsMigrations`).
 * Asks the server once which read of filtered pages it needs (`pageReadFor`).
 */
export async function createMongoFormsStores(db: MongoDb, options: MongoFormsStoresOptions = {}): Promise<FormsStores> {
  const pageRead = options.pageRead ?? (await pageReadFor(db));
  return {
    forms: createMongoFormRepository(db, { claimAbandonedMs: options.claimAbandonedMs }),
    submissions: createMongoSubmissionReadModel(db, { layout: pageLayout(options.pageWidth), pageRead }),
    changes: createMongoSubmissionChanges(db),
    held: createMongoHeldSubmissions(db),
    blocked: createMongoBlockedCounts(db),
    erasures: createMongoErasures(db),
    retention: createMongoRetention(db),
  };
}
