import type { Form, OrgScope } from '@formgate/contracts';
import type { FoundSubmission } from './erasures.ts';

/**
 * Retention (issue 31): the organizations' default retention and what the sweep reads. Guarantees every adapter
 * keeps:
 * - `getOrgDays` answers what `setOrgDays` last stored for the organization (null: never set, or cleared), never
 *   another's; the organization's purge (`FormRepository.purgeOrganization`) forgets it.
 * - `listForms` walks every form of every organization by id: each once across its pages.
 * - `listExpired` answers the form's submissions received before `before`, held ones included, never deleted or
 *   erased ones, never another organization's, oldest first, at most `limit`; one erased is answered no more, so a
 *   sweep cut short by a crash finds the rest and only the rest.
 * - `oldestAt` answers the `createdAt` of the form's oldest such submission (any time), or null.
 */
export interface RetentionStore {
  getOrgDays(scope: OrgScope): Promise<number | null>;
  setOrgDays(scope: OrgScope, days: number | null): Promise<void>;
  /** Forms with an id after `afterId` ('' for the first page), by id. */
  listForms(afterId: string, limit: number): Promise<Form[]>;
  listExpired(scope: OrgScope, formId: string, before: string, limit: number): Promise<FoundSubmission[]>;
  oldestAt(scope: OrgScope, formId: string): Promise<string | null>;
}
