import { type EventBus, groupsCaughtUp } from '@formgate/bus';
import { CONSUMER_GROUPS, Topics } from '@formgate/contracts';
import type { ErasureSweep } from '@formgate/forms';
import type { Logger } from '@formgate/kit';
import { type SqliteDb, truncateWal } from '@formgate/store/sqlite';

/** How long an erasure waits for the consumers of its deletions before it sweeps what is there. */
const CONSUMERS_TIMEOUT_MS = 30_000;
const POLL_MS = 20;
/** Records are stamped by the log's clock, submissions by ingest's: the same machine's, give or take. */
const CLOCK_SLACK_MS = 60_000;

/**
 * The topics whose records an erasure rewrites, and `forms.submission`, whose deletions it waits to be handled: every
 * group reading them must have read what they held before the sweep goes on (so no group loses a record it had not
 * read yet, and notifications have erased their copies).
 */
const SWEPT_TOPICS: readonly string[] = [Topics.formsSubmission, Topics.ingestSubmission, Topics.notificationsDelivery];
const SWEPT_GROUPS = CONSUMER_GROUPS.filter((g) => SWEPT_TOPICS.includes(g.topic));

/**
 * Embedded mode's sweep after an erasure (issue 31, `docs/privacy.md`): nothing of the erased submissions is left
 * in `DATA_DIR` once it resolves. It waits for the consumers of the deletions (notifications erase their copies,
 * the content of their deliveries and their mail files), erases the log's records of the submissions (their
 * `submission.received`, releases, delivery outcomes, dead letters), then checkpoints every file of this thread
 * into place and truncates its WAL; `secure_delete` (`openSqlite`) has zeroed what was deleted.
 */
export function createEmbeddedErasureSweep(deps: {
  bus: EventBus;
  dbs: Record<string, SqliteDb>;
  logger: Logger;
  consumersTimeoutMs?: number;
}): ErasureSweep {
  return async ({ erasure, submissionIds, receivedSince }) => {
    const timeoutMs = deps.consumersTimeoutMs ?? CONSUMERS_TIMEOUT_MS;
    if (!(await groupsCaughtUp(deps.bus, SWEPT_GROUPS, { timeoutMs, pollMs: POLL_MS }))) {
      deps.logger.warn(
        { erasure },
        'erasure: the consumers of its deletions are behind; their copies go when they catch up',
      );
    }
    // Not the erasure's own deletion events (only ids): a consumer that is behind must still see them.
    const since = Date.parse(receivedSince) - CLOCK_SLACK_MS;
    const erased = await deps.bus.eraseRecords({ holding: submissionIds, unless: erasure, since });
    for (const [name, db] of Object.entries(deps.dbs)) {
      if (!(await truncateWal(db)))
        deps.logger.warn({ erasure, db: name }, 'erasure: a WAL could not be truncated yet');
    }
    deps.logger.info({ erasure, records: erased }, 'erasure swept: log records erased, files checkpointed');
  };
}
