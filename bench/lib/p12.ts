import type { BenchForm, FormgateApi } from './formgate-api.ts';
import { PAYLOADS } from './payloads.ts';
import { sleep } from './processes.ts';
import { cpuSeconds } from './quiesce.ts';
import type { SmtpSink, SunkMail } from './smtp-sink.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

/**
 * P12: the asynchronous path from the ingest answer to the email accepted by SMTP. A form notifies two verified
 * addresses; submissions arrive at a steady rate (open loop: each is sent at its scheduled moment, whatever the
 * earlier ones are doing); the bench records when each 2xx arrived and when the SMTP sink accepted each email,
 * matched by the submission id at the end of the link the notification carries (`…/submissions/{id}`).
 *
 * The webhook half, "2xx → first webhook attempt": the same form has a Standard Webhooks endpoint
 * (`POST /api/v1/forms/{formId}/webhooks`, `submission.created`) pointing at a receiver in the bench process; each
 * request is matched by the submission id of its body (`data.id`), waited for like the emails.
 */
export interface P12Settings {
  /** Submissions per second, offered at a fixed schedule. */
  rate: number;
  seconds: number;
  /**
   * Missing emails are counted lost once none has arrived for this long (ms): a backlog that still moves is waited
   * for, so a slow pipeline shows as latency, not as loss...
   */
  quietMs: number;
  /**
   * ...up to this long after the last answer (ms): then the emails still missing are `pending` (neither lost nor
   * delivered), and the latency quantiles are lower bounds (`censored`).
   */
  drainCapMs: number;
}

/** The deployment P12 measures in one mode: where to post and an API key of its organization. */
export interface P12Target {
  url: string;
  api: FormgateApi;
  /** The deployment's processes (CPU use is reported). */
  pids: number[];
}

export interface P12Setup {
  form: BenchForm;
  recipients: string[];
  setupMs: number;
  /** Submissions of the warm-up and of earlier rounds: their late emails are not counted in a later round. */
  earlier: Set<string>;
}

export interface P12Round {
  offered: number;
  acknowledged: number;
  /** Answers that were not 2xx, or requests that failed, by status (`error` for a network failure). */
  failures: Record<string, number>;
  /** How late the last request left compared with its schedule (ms): the load generator keeping up. */
  sendLagMs: number;
  expected: number;
  received: number;
  /** (submission, recipient) pairs with no email once the sink went quiet for `quietMs`. */
  lost: number;
  /** (submission, recipient) pairs with no email yet when the bench stopped waiting at `drainCapMs`. */
  pending: number;
  /** True when `pending` > 0: each pending email counts as "at least until the cutoff" in p50/p99/max. */
  censored: boolean;
  /** Emails beyond the first for one (submission, recipient). */
  duplicates: number;
  /** Emails for an unknown submission (no 2xx seen) or to another address. */
  unexpected: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** From the last 2xx to the last expected email (ms). */
  drainMs: number;
  /** From the first request to the last 2xx (ms). */
  lastOkMs: number;
  /** CPU used by the deployment's processes from the first request to the last email, in cores (1 = one full core). */
  cores: number | null;
  /** The webhook half: one request expected per acknowledged submission. */
  hooks: {
    expected: number;
    received: number;
    lost: number;
    pending: number;
    /** Requests beyond the first for one submission (the receiver answers 204, so none is a retry). */
    duplicates: number;
    /** Requests for no acknowledged submission. */
    unexpected: number;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    /** From the last 2xx to the last expected webhook's first request (ms). */
    drainMs: number;
  };
}

const SUBMISSION_LINK = /\/submissions\/([^/?#]+)$/;

/** The id at the end of the notification's link to the submission (`/dashboard/forms/{slug}/submissions/{id}`). */
function submissionIdOf(mail: SunkMail): string | null {
  for (const link of mail.links) {
    const match = SUBMISSION_LINK.exec(new URL(link).pathname);
    if (match?.[1]) return decodeURIComponent(match[1]);
  }
  return null;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))] ?? Number.NaN;
}

async function postSubmission(url: string, key: string): Promise<{ status: number; id: string | null }> {
  const payload = PAYLOADS.urlencoded;
  const res = await fetch(`${url}/f/${key}`, {
    method: 'POST',
    headers: { 'content-type': payload.contentType, accept: 'application/json' },
    body: payload.body,
  });
  if (res.status < 200 || res.status >= 300) {
    await res.arrayBuffer();
    return { status: res.status, id: null };
  }
  const body = (await res.json()) as { id?: string };
  return { status: res.status, id: typeof body.id === 'string' ? body.id : null };
}

/**
 * Sets a mode up as a user would: adds the two addresses (`POST /api/v1/notification-emails`), opens the
 * verification link each mail carries (it arrives through the SMTP sink), creates a form and turns its
 * notifications to those addresses on (`PATCH /api/v1/forms/{id}`), then posts warm-up submissions until one
 * is mailed to both (the notifications service learns about the form from the log, so the first ones may not be).
 */
export async function setUpP12(
  target: P12Target,
  sink: SmtpSink,
  hooks: WebhookReceiver,
  mode: string,
): Promise<P12Setup> {
  const started = performance.now();
  const recipients = ['a', 'b'].map((x) => `p12-${mode}-${x}@example.com`);
  for (const email of recipients) {
    const added = await target.api.call<{ verified: boolean }>('POST', '/api/v1/notification-emails', { email });
    if (added.verified) throw new Error(`P12 ${mode}: ${email} was verified without a link`);
    const link = new URL(await sink.waitForLink(email, /^Confirm /));
    const opened = await fetch(`${target.url}${link.pathname}${link.search}`, { redirect: 'manual' });
    await opened.arrayBuffer();
    const landing = new URL(opened.headers.get('location') ?? '', target.url).pathname;
    if (opened.status !== 303 || !landing.startsWith('/dashboard/emails/verification-success/')) {
      throw new Error(`P12 ${mode}: opening the verification link of ${email} answered ${opened.status} ${landing}`);
    }
  }
  const listed = await target.api.get<{ data: { email: string; verified: boolean }[] }>('/api/v1/notification-emails');
  const verified = listed.data.filter((r) => r.verified).map((r) => r.email);
  if (!recipients.every((r) => verified.includes(r))) throw new Error(`P12 ${mode}: addresses not verified`);

  const form = await target.api.createForm(`P12 ${mode}`);
  await target.api.call('PATCH', `/api/v1/forms/${form.id}`, {
    settings: { notifications: { enabled: true, emails: recipients } },
  });
  // The notifications service learns about the form from the log too: until it has, the webhooks API answers 404
  // (docs/api.md, "Webhook endpoints"), and a client tries again.
  for (const deadline = Date.now() + 30_000; ; ) {
    try {
      await target.api.call('POST', `/api/v1/forms/${form.id}/webhooks`, {
        url: hooks.url,
        kind: 'standard',
        events: ['submission.created'],
      });
      break;
    } catch (err) {
      if (!String(err).includes('FORMS_FORM_NOT_FOUND') || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  await target.api.waitUntilIngestKnows(form.key);

  // Any warm-up submission mailed to both will do: the first ones may wait in the bus (retried) until the
  // notifications service's view of the form catches up, and then arrive after later ones.
  const earlier = new Set<string>();
  const seen = new Map<string, Set<string>>();
  const hooked = new Set<string>();
  const mailedToBoth = () => [...earlier].some((id) => recipients.every((r) => seen.get(id)?.has(r)) && hooked.has(id));
  hooks.onWebhook((hook) => {
    if (hook.submissionId) hooked.add(hook.submissionId);
  });
  sink.onMail((mail) => {
    const id = submissionIdOf(mail);
    if (id === null) return;
    const to = seen.get(id) ?? new Set<string>();
    for (const address of mail.to) to.add(address);
    seen.set(id, to);
  });
  const deadline = Date.now() + 180_000;
  for (;;) {
    const { id } = await postSubmission(target.url, form.key);
    if (id !== null) earlier.add(id);
    const until = Date.now() + 3_000;
    while (Date.now() < until && !mailedToBoth()) await sleep(20);
    if (mailedToBoth()) break;
    if (Date.now() > deadline) {
      const log = id
        ? await target.api
            .get<{ data: { target: string; status: string; lastResponse: unknown }[] }>(
              `/api/v1/forms/${form.id}/submissions/${id}/deliveries`,
            )
            .then(
              (r) => JSON.stringify(r.data).slice(0, 400),
              (err: Error) => err.message.slice(0, 200),
            )
        : 'no submission id';
      sink.onMail(null);
      hooks.onWebhook(null);
      throw new Error(
        `P12 ${mode}: no warm-up submission was mailed to both addresses and sent to the webhook; delivery log: ${log}`,
      );
    }
  }
  sink.onMail(null);
  hooks.onWebhook(null);
  return { form, recipients, setupMs: performance.now() - started, earlier };
}

interface Tracked {
  okAt: number | null;
  /** acceptedAt of each email, per recipient. */
  mails: Map<string, number[]>;
  /** Arrival of each webhook request. */
  hooks: number[];
}

/** One P12 measurement: `rate × seconds` submissions on the fixed schedule, then the emails they cause. */
export async function measureP12(
  target: P12Target,
  setup: P12Setup,
  sink: SmtpSink,
  hooks: WebhookReceiver,
  settings: P12Settings,
): Promise<P12Round> {
  const tracked = new Map<string, Tracked>();
  const track = (id: string) => {
    let t = tracked.get(id);
    if (!t) {
      t = { okAt: null, mails: new Map(), hooks: [] };
      tracked.set(id, t);
    }
    return t;
  };
  let unexpected = 0;
  let lastMailSeen = 0;
  // An email may beat its own 2xx to the bench: it is kept under its id until the answer arrives.
  sink.onMail((mail) => {
    // The other mode's late emails (each mode has its own addresses) and this form's earlier submissions.
    if (!mail.to.some((to) => setup.recipients.includes(to))) return;
    const id = submissionIdOf(mail);
    if (id !== null && setup.earlier.has(id)) return;
    if (id === null) {
      unexpected++;
      return;
    }
    lastMailSeen = mail.acceptedAt;
    const t = track(id);
    for (const to of mail.to) {
      const list = t.mails.get(to) ?? [];
      list.push(mail.acceptedAt);
      t.mails.set(to, list);
    }
  });

  let unexpectedHooks = 0;
  hooks.onWebhook((hook) => {
    if (hook.submissionId !== null && setup.earlier.has(hook.submissionId)) return;
    if (hook.submissionId === null) {
      unexpectedHooks++;
      return;
    }
    lastMailSeen = hook.at;
    track(hook.submissionId).hooks.push(hook.at);
  });

  const offered = settings.rate * settings.seconds;
  const failures: Record<string, number> = {};
  const pending: Promise<void>[] = [];
  const interval = 1000 / settings.rate;
  const cpu = () => target.pids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? Number.NaN), 0);
  const cpuBefore = cpu();
  const start = performance.now();
  let sendLagMs = 0;
  let lastOkAt = start;
  for (let i = 0; i < offered; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    sendLagMs = Math.max(sendLagMs, performance.now() - due);
    pending.push(
      postSubmission(target.url, setup.form.key).then(
        ({ status, id }) => {
          const at = performance.now();
          if (id === null) {
            failures[String(status)] = (failures[String(status)] ?? 0) + 1;
            return;
          }
          track(id).okAt = at;
          lastOkAt = Math.max(lastOkAt, at);
        },
        () => {
          failures.error = (failures.error ?? 0) + 1;
        },
      ),
    );
  }
  await Promise.all(pending);

  const acknowledged = [...tracked.values()].filter((t) => t.okAt !== null);
  const complete = () =>
    acknowledged.every((t) => t.hooks.length > 0 && setup.recipients.every((r) => (t.mails.get(r)?.length ?? 0) > 0));
  const quiet = () => performance.now() - Math.max(lastMailSeen, lastOkAt) >= settings.quietMs;
  const capped = () => performance.now() - lastOkAt >= settings.drainCapMs;
  while (!complete() && !quiet() && !capped()) await sleep(20);
  const cutoffAt = performance.now();
  const cutByCap = !complete() && !quiet();
  const busy = (cpu() - cpuBefore) / ((performance.now() - start) / 1000);
  // A moment more, so a duplicate sent right after the first copy is seen too.
  await sleep(1_000);
  sink.onMail(null);
  hooks.onWebhook(null);
  for (const id of tracked.keys()) setup.earlier.add(id);

  const latencies: number[] = [];
  let missing = 0;
  let duplicates = 0;
  let received = 0;
  let lastMailAt = lastOkAt;
  for (const t of tracked.values()) {
    for (const [to, times] of t.mails) {
      if (t.okAt === null || !setup.recipients.includes(to)) {
        unexpected += times.length;
        continue;
      }
      received += times.length;
      duplicates += times.length - 1;
      const first = Math.min(...times);
      latencies.push(first - t.okAt);
      lastMailAt = Math.max(lastMailAt, first);
    }
    const okAt = t.okAt;
    if (okAt === null) continue;
    const absent = setup.recipients.filter((r) => !t.mails.has(r)).length;
    missing += absent;
    // Not arrived yet: its latency is at least the time until the bench stopped waiting.
    if (cutByCap) for (let i = 0; i < absent; i++) latencies.push(cutoffAt - okAt);
  }
  latencies.sort((a, b) => a - b);

  const hookLatencies: number[] = [];
  let lastHookAt = lastOkAt;
  let hooksMissing = 0;
  let hooksReceived = 0;
  let hookDuplicates = 0;
  for (const t of tracked.values()) {
    if (t.okAt === null) {
      unexpectedHooks += t.hooks.length;
      continue;
    }
    hooksReceived += t.hooks.length;
    if (t.hooks.length === 0) {
      hooksMissing++;
      if (cutByCap) hookLatencies.push(cutoffAt - t.okAt);
      continue;
    }
    hookDuplicates += t.hooks.length - 1;
    hookLatencies.push(Math.min(...t.hooks) - t.okAt);
    lastHookAt = Math.max(lastHookAt, Math.min(...t.hooks));
  }
  hookLatencies.sort((a, b) => a - b);
  return {
    offered,
    acknowledged: acknowledged.length,
    failures,
    sendLagMs,
    expected: acknowledged.length * setup.recipients.length,
    received,
    lost: cutByCap ? 0 : missing,
    pending: cutByCap ? missing : 0,
    censored: cutByCap && missing > 0,
    duplicates,
    unexpected,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    maxMs: latencies.at(-1) ?? Number.NaN,
    drainMs: lastMailAt - lastOkAt,
    lastOkMs: lastOkAt - start,
    cores: Number.isFinite(busy) ? busy : null,
    hooks: {
      expected: acknowledged.length,
      received: hooksReceived,
      lost: cutByCap ? 0 : hooksMissing,
      pending: cutByCap ? hooksMissing : 0,
      duplicates: hookDuplicates,
      unexpected: unexpectedHooks,
      p50Ms: quantile(hookLatencies, 0.5),
      p99Ms: quantile(hookLatencies, 0.99),
      maxMs: hookLatencies.at(-1) ?? Number.NaN,
      drainMs: lastHookAt - lastOkAt,
    },
  };
}
