import { type EventBus, groupsCaughtUp } from '@formgate/bus';
import { CONSUMER_GROUPS, UPLOAD_TTL_SECONDS } from '@formgate/contracts';
import { type Clock, createRelayLoop, type Logger } from '@formgate/kit';
import type { BlobStore } from '@formgate/store';
import type { SubmissionReadModel } from '../store/submission-read-model.ts';

/** How often each forms instance sweeps (instances sweeping at once delete the same strays: harmless). */
export const STRAY_SWEEP_MS = 60 * 60_000;
/**
 * A blob younger than this is never a stray: a direct upload's `_uploads` token is valid 24 hours after its grant
 * (and the upload comes after the grant), and an hour covers a submission that was being appended meanwhile.
 */
export const STRAY_MIN_AGE_MS = (UPLOAD_TTL_SECONDS + 60 * 60) * 1000;
const PAGE = 500;
const CATCH_UP_TIMEOUT_MS = 60_000;

export interface StraySweepResult {
  /** The projection was behind for a minute: nothing was judged this time. */
  skipped: boolean;
  /** Blobs old enough to be judged. */
  scanned: number;
  /** Of those, the ones no stored submission names (deleted unless a dry run). */
  strays: number;
  deleted: number;
}

export interface StraySweepDeps {
  blobs: Pick<BlobStore, 'listBefore' | 'delete'>;
  submissions: Pick<SubmissionReadModel, 'fileReferences'>;
  /** Resolves true once everything appended to `ingest.submission` so far is in the read model. */
  caughtUp: () => Promise<boolean>;
  clock: Clock;
  logger: Logger;
}

/**
 * The stray sweep (issue 33): deletes every blob older than `STRAY_MIN_AGE_MS` that no stored submission names —
 * direct uploads never attached to a submission, and what a crash left between a blob's write and its submission's
 * append or deletion. It first waits until the submissions projection has caught up with the log, so a blob of an
 * accepted submission not projected yet is never taken for a stray; a blob that old can only belong to a submission
 * appended before the sweep began (a direct upload's token expires 24 hours after its grant).
 */
export async function sweepStrays(deps: StraySweepDeps, options: { dryRun?: boolean } = {}): Promise<StraySweepResult> {
  const result: StraySweepResult = { skipped: false, scanned: 0, strays: 0, deleted: 0 };
  if (!(await deps.caughtUp())) {
    deps.logger.warn('stray sweep skipped: the submissions projection is behind; it runs again at the next interval');
    return { ...result, skipped: true };
  }
  const before = new Date(deps.clock.now().getTime() - STRAY_MIN_AGE_MS);
  let cursor: string | null = null;
  do {
    const page: { keys: string[]; next: string | null } = await deps.blobs.listBefore(before, cursor, PAGE);
    result.scanned += page.keys.length;
    const named = page.keys.length > 0 ? await deps.submissions.fileReferences(page.keys) : new Set<string>();
    for (const key of page.keys) {
      if (named.has(key)) continue;
      result.strays += 1;
      if (options.dryRun) continue;
      await deps.blobs.delete(key);
      result.deleted += 1;
    }
    cursor = page.next;
  } while (cursor !== null);
  if (result.strays > 0) deps.logger.info({ ...result, dryRun: options.dryRun === true }, 'stray sweep');
  return result;
}

/**
 * Whether `forms.submission-received` has read everything `ingest.submission` held when asked, waiting up to a
 * minute for it.
 */
export function projectionCaughtUp(bus: Pick<EventBus, 'lag'>, timeoutMs = CATCH_UP_TIMEOUT_MS) {
  const groups = CONSUMER_GROUPS.filter((g) => g.group === 'forms.submission-received');
  return () => groupsCaughtUp(bus, groups, { timeoutMs, pollMs: 500 });
}

/** The sweep every `intervalMs`, and on `kick`. */
export function createStraySweep(deps: StraySweepDeps & { intervalMs: number }) {
  const loop = createRelayLoop({
    pass: async () => {
      await sweepStrays(deps);
      return false;
    },
    intervalMs: deps.intervalMs,
    onError: (err) => deps.logger.warn({ err }, 'the stray sweep failed; it runs again at the next interval'),
  });
  return { kick: loop.kick, start: loop.start, stop: loop.stop };
}
