import { type FormgateClient, FormgateError } from '@formgate/client';
import { type CheckName, judgeEmails, judgeStored, judgeWebhooks, type Verdict } from './checks.ts';
import { type CanaryPlan, readPlan } from './plan.ts';

/** What a run needs from outside: the API, the clocks and ids (the command passes the real ones). */
export interface CanaryDeps {
  client: FormgateClient;
  /** Wall-clock time, for the run's timestamp and the marker. */
  now: () => Date;
  /** A monotonic clock in milliseconds, for latencies. */
  monotonicMs: () => number;
  newId: () => string;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface CheckResult {
  check: CheckName;
  status: 'passed' | 'failed' | 'skipped';
  /** From sending the submission until the check was seen passed; null unless passed. */
  ms: number | null;
  detail: string;
}

export interface CanaryResult {
  runId: string;
  formId: string;
  submissionId: string | null;
  startedAt: string;
  deadlineMs: number;
  /** Every check passed (or was not applicable) and the submission was deleted. */
  ok: boolean;
  /** Stopped by a signal before its checks ended. */
  interrupted: boolean;
  checks: CheckResult[];
  cleanup: { ok: boolean; detail: string };
}

/** How often the API is asked while a check waits: the latencies reported are this much late at most. */
const POLL_MS = 250;
/** How long the deletion of the canary's submission is tried, also after a stop signal. */
const CLEANUP_MS = 15_000;
const CHECKS: CheckName[] = ['stored', 'mailed', 'webhooked'];

const reason = (err: unknown) =>
  err instanceof FormgateError ? `${err.status} ${err.code}: ${err.message}` : String(err);

/**
 * The submission: the run named in a data field (receivers and inbox rules recognise canaries by it) and in
 * `_subject`, which a form's subject template shows through `{{subject}}`.
 */
function marker(runId: string, at: Date) {
  return {
    _subject: `Formgate canary ${runId}`,
    canary: runId,
    message: `Formgate canary run ${runId}, sent ${at.toISOString()} by formgate canary; deleted once checked.`,
  };
}

/** Why the form gives `check` nothing to check, or null. */
const skipReason = (check: CheckName, plan: CanaryPlan | undefined) =>
  (check === 'mailed' ? plan?.noMail : check === 'webhooked' ? plan?.noWebhook : null) ?? null;

type Verdicts = Map<CheckName, Verdict & { ms?: number }>;

/**
 * Looks until every check passed, one failed for good, or `signal` aborted (the deadline or a stop): the submission
 * by id, then its delivery log. A failed API call is "not yet" (the deadline judges it); the last one is reported.
 */
async function watch(deps: CanaryDeps, plan: CanaryPlan, submissionId: string, t0: number, signal: AbortSignal) {
  const verdicts: Verdicts = new Map();
  const settle = (check: CheckName, v: Verdict) =>
    verdicts.set(check, v.state === 'passed' ? { ...v, ms: Math.round(deps.monotonicMs() - t0) } : v);
  const checked = CHECKS.filter((c) => !skipReason(c, plan));
  const open = () => checked.filter((c) => (verdicts.get(c)?.state ?? 'waiting') === 'waiting');
  let apiError: string | null = null;
  while (open().length && !signal.aborted) {
    try {
      if (open().includes('stored')) {
        const stored = judgeStored(await deps.client.submissions.get(plan.formId, submissionId, { signal }));
        settle('stored', stored);
        if (stored.state === 'failed') for (const c of open()) settle(c, { state: 'failed', detail: 'not delivered' });
      }
      if (open().length) {
        const log = await deps.client.submissions.deliveries(plan.formId, submissionId, { signal });
        if (open().includes('mailed')) settle('mailed', judgeEmails(plan.emails, log));
        if (open().includes('webhooked')) settle('webhooked', judgeWebhooks(plan.webhooks, log));
      }
      apiError = null;
    } catch (err) {
      if (signal.aborted) break;
      if (err instanceof FormgateError && err.status === 404)
        settle('stored', { state: 'waiting', detail: 'not found' });
      else apiError = reason(err);
    }
    if (open().length) await deps.sleep(POLL_MS, signal);
  }
  return { verdicts, apiError };
}

/** A check's line of the result: passed, skipped (not configured) or failed, with why. */
function result(check: CheckName, plan: CanaryPlan, watched: Awaited<ReturnType<typeof watch>>, why: string) {
  const skipped = skipReason(check, plan);
  if (skipped) return { check, status: 'skipped', ms: null, detail: skipped } as const;
  const v = watched.verdicts.get(check);
  if (v?.state === 'passed') return { check, status: 'passed', ms: v.ms ?? null, detail: v.detail } as const;
  if (v?.state === 'failed') return { check, status: 'failed', ms: null, detail: v.detail } as const;
  const seen = v?.detail ?? (check === 'stored' ? 'not found' : 'no delivery log read');
  const api = watched.apiError ? `; last API error: ${watched.apiError}` : '';
  return { check, status: 'failed', ms: null, detail: `${why}: ${seen}${api}` } as const;
}

/** Deletes the submission (its fields, files and notification copies); retried while it may still be arriving. */
async function cleanUp(deps: CanaryDeps, formId: string, submissionId: string, seenStored: boolean) {
  const signal = AbortSignal.timeout(CLEANUP_MS);
  let last = '';
  while (!signal.aborted) {
    try {
      await deps.client.submissions.delete(formId, submissionId, { signal });
      return { ok: true, detail: `submission ${submissionId} deleted` };
    } catch (err) {
      if (seenStored && err instanceof FormgateError && err.status === 404)
        return { ok: true, detail: `submission ${submissionId} already gone` };
      last = err instanceof FormgateError && err.status === 404 ? 'not stored' : reason(err);
    }
    await deps.sleep(POLL_MS * 4, signal);
  }
  return { ok: false, detail: `submission ${submissionId} not deleted (${last}): delete it by hand if it appears` };
}

const failedAll = (detail: string, plan?: CanaryPlan): CheckResult[] =>
  CHECKS.map((check) => {
    const skipped = skipReason(check, plan);
    return skipped
      ? { check, status: 'skipped', ms: null, detail: skipped }
      : { check, status: 'failed', ms: null, detail };
  });

/**
 * One canary run: reads what the form expects, sends a marked submission to `/f/{formKey}`, watches it be stored,
 * mailed and webhooked until `deadlineMs` after sending, then deletes it — also after a failure or a stop
 * (`signal`). Never throws for what the deployment does: every failure is in the result.
 */
export async function runCanary(
  deps: CanaryDeps,
  o: { formId: string; deadlineMs: number; signal: AbortSignal },
): Promise<CanaryResult> {
  const runId = deps.newId();
  const startedAt = deps.now();
  const run = { runId, formId: o.formId, startedAt: startedAt.toISOString(), deadlineMs: o.deadlineMs };
  const nothingSent = { ok: true, detail: 'nothing was sent' };
  let plan: CanaryPlan;
  try {
    plan = await readPlan(deps.client, o.formId, {
      signal: AbortSignal.any([o.signal, AbortSignal.timeout(o.deadlineMs)]),
    });
  } catch (err) {
    const checks = failedAll(`cannot read the form: ${o.signal.aborted ? 'interrupted' : reason(err)}`);
    return { ...run, submissionId: null, ok: false, interrupted: o.signal.aborted, checks, cleanup: nothingSent };
  }
  // A stop does not cut the send short: the answer's id is what the cleanup needs.
  const deadline = AbortSignal.timeout(o.deadlineMs);
  const t0 = deps.monotonicMs();
  let submissionId: string;
  try {
    const sent = await deps.client.submit(plan.formKey, marker(runId, startedAt), {
      idempotencyKey: `canary-${runId}`,
      signal: deadline,
    });
    submissionId = sent.id;
  } catch (err) {
    const unanswered = deadline.aborted;
    const checks = failedAll(`not accepted: ${unanswered ? 'no answer within the deadline' : reason(err)}`, plan);
    // Unanswered, it may still have been accepted, under an id the canary never learnt.
    const cleanup = unanswered
      ? { ok: false, detail: `if it was stored, its field canary is ${runId}: delete it by hand` }
      : nothingSent;
    return { ...run, submissionId: null, ok: false, interrupted: o.signal.aborted, checks, cleanup };
  }
  const watched = await watch(deps, plan, submissionId, t0, AbortSignal.any([o.signal, deadline]));
  const interrupted = o.signal.aborted;
  const why = interrupted ? 'interrupted' : `not within ${o.deadlineMs} ms`;
  const checks = CHECKS.map((check) => result(check, plan, watched, why));
  const seenStored = watched.verdicts.get('stored')?.state === 'passed';
  const cleanup = await cleanUp(deps, plan.formId, submissionId, seenStored);
  const ok = !interrupted && cleanup.ok && checks.every((c) => c.status !== 'failed');
  return { ...run, submissionId, ok, interrupted, checks, cleanup };
}
