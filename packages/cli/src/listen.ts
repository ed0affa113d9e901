import { randomUUID } from 'node:crypto';
import { FormgateError, type LiveEvent, type LiveSubmissionEvent, streamEvents } from '@formgate/client';
import { LIVE_EVENT_TYPES, type LiveEventType } from '@formgate/contracts';
import { generateWebhookSecret, signWebhook } from '@formgate/kit/webhook-signing';
import type { CliConfig } from './config.ts';
import { CliError } from './http.ts';
import { Printed } from './ops.ts';

export interface ListenOptions {
  'forward-to'?: string;
  form?: string;
  events?: string;
}

/** Where `listen` prints (standard output and error in the CLI; a test may pass its own). */
export interface ListenIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Aborted on SIGINT / SIGTERM. */
  signal: AbortSignal;
}

const RECONNECT_MS = [250, 1_000, 2_000, 5_000];
const FORWARD_TIMEOUT_MS = 10_000;
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

function parseOptions(v: ListenOptions) {
  const target = v['forward-to'];
  if (!target || !/^https?:\/\/[^/]/.test(target))
    throw new CliError('listen needs --forward-to <http://localhost:PORT/path>');
  const events = (v.events?.split(',').map((e) => e.trim()) ?? [...LIVE_EVENT_TYPES]) as LiveEventType[];
  const unknown = events.filter((e) => !LIVE_EVENT_TYPES.includes(e));
  if (unknown.length) throw new CliError(`Unknown event ${unknown.join(', ')}; one of ${LIVE_EVENT_TYPES.join(', ')}`);
  return { target, events: new Set(events) };
}

const isSubmission = (event: LiveEvent): event is LiveSubmissionEvent =>
  event.type === 'submission.created' || event.type === 'submission.spam';

/** One line about an event, without a submission's contents (they may be personal data). */
function describe(event: LiveEvent): string {
  if (isSubmission(event)) return `${event.type} ${event.payload.data.id} form ${event.payload.data.form.id}`;
  const d = event.payload.data;
  return `${event.type} ${d.channel} ${d.purpose} of ${d.submissionId} (attempt ${d.attempt}${d.final ? ', final' : ''})`;
}

/** POSTs a submission event's body to the local URL, signed as its real webhook delivery would be. */
async function forward(target: string, secret: string, event: LiveEvent, signal: AbortSignal): Promise<string> {
  const msgId = `msg_listen_${randomUUID()}`;
  const headers = signWebhook({ msgId, timestamp: new Date(), body: event.data, secret });
  try {
    const res = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'formgate-listen', ...headers },
      body: event.data,
      signal: AbortSignal.any([signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
    });
    await res.body?.cancel();
    return `${res.status}`;
  } catch (err) {
    return `failed (${(err as Error).cause ? String((err as { cause: Error }).cause.message) : (err as Error).message})`;
  }
}

/**
 * `formgate listen`: follows the organization's live events (`GET /api/v1/events`), prints a line per event and
 * forwards each submission event to `--forward-to`, signed with a signing secret made for this run (Standard
 * Webhooks, the function real deliveries use). A dropped connection is resumed after the last event seen
 * (`Last-Event-ID`); SIGINT or SIGTERM stops it.
 */
export async function listenCommand(config: CliConfig, v: ListenOptions, io: ListenIo): Promise<Printed> {
  const { target, events } = parseOptions(v);
  if (!config.FORMGATE_API_KEY)
    throw new CliError('Set FORMGATE_API_KEY to an organization API key (a read key is enough).');
  const secret = generateWebhookSecret();
  io.out(`Ready. Your webhook signing secret is ${secret} (for this run only)`);
  io.out(`Forwarding ${[...events].join(', ')} to ${target}; Ctrl-C stops.`);
  let lastEventId: string | undefined;
  let failures = 0;
  while (!io.signal.aborted) {
    try {
      const stream = streamEvents({
        baseUrl: config.FORMGATE_URL,
        apiKey: config.FORMGATE_API_KEY,
        formId: v.form,
        lastEventId,
        signal: io.signal,
        onOpen: () => io.out(lastEventId ? 'Reconnected: resuming after the last event.' : 'Connected.'),
      });
      for await (const event of stream) {
        failures = 0;
        lastEventId = event.id;
        if (!events.has(event.type)) continue;
        const answer = isSubmission(event)
          ? ` → POST ${target} ${await forward(target, secret, event, io.signal)}`
          : '';
        io.out(`${new Date().toISOString()} ${describe(event)}${answer}`);
      }
    } catch (err) {
      if (!(err instanceof FormgateError) || (err.status >= 400 && err.status < 500 && err.status !== 429))
        throw err instanceof FormgateError ? new CliError(`${err.status} ${err.code}: ${err.message}`) : err;
      io.err(`connection lost (${err.message}); reconnecting`);
    }
    if (io.signal.aborted) break;
    await sleep(RECONNECT_MS[Math.min(failures++, RECONNECT_MS.length - 1)] as number, io.signal);
  }
  return new Printed('Stopped.');
}

/** `listen` as the CLI runs it: lines on standard output and error, stopped by SIGINT or SIGTERM. */
export function listenFromCli(config: CliConfig, v: ListenOptions): Promise<Printed> {
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  return listenCommand(config, v, {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    signal: stop.signal,
  });
}
