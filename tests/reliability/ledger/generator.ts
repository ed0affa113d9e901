import { Agent, request } from 'node:http';
import { recordApiAnswer, STAND_IN_HEADER } from '../../harness/api-recorder.ts';
import type { LedgerEntry, LedgerResult } from './types.ts';

export interface LoadOptions {
  /** The gateway, on loopback. */
  baseUrl: string;
  formKey: string;
  /** Prefix of every `Idempotency-Key`, unique per run. */
  runId: string;
  count: number;
  connections: number;
  /** Submissions started per second over all connections; unset = as fast as the connections allow. */
  ratePerSecond?: number;
  /** Attempts per submission, the first included (a client that gives up after that many). */
  maxAttempts?: number;
  /** How long a client keeps retrying one submission after its first attempt. */
  retryBudgetMs?: number;
  attemptTimeoutMs?: number;
  /** The whole run: after it nothing new is sent and nothing is retried. */
  deadlineMs?: number;
}

export interface Load {
  /** Submissions that have a final outcome so far, and how many of them were acked. */
  progress(): { finished: number; acked: number };
  done: Promise<LedgerResult>;
}

type Answer = { label: string; id?: string; retryAfterMs?: number; retriable: boolean };

const RETRIABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 10) * 1000 : undefined;
}

/** One POST, never throwing and settling exactly once: a network error, a reset or a timeout is a labelled answer. */
function post(url: URL, key: string, body: string, agent: Agent, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const req = request(url, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'idempotency-key': key,
        'content-length': Buffer.byteLength(body),
      },
    });
    const timer = setTimeout(() => {
      finish({ label: 'TIMEOUT', retriable: true });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish({ label: err.code ?? 'ERROR', retriable: true }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => {});
      // The connection dropped in the middle of the answer: the client does not know the outcome.
      res.on('close', () => finish({ label: 'RESPONSE_CUT', retriable: true }));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString();
        // The ingest's answers under faults (429, 503 + Retry-After) are checked against the OpenAPI description too;
        // a test's stand-in's are not Formgate's.
        if (!res.headers[STAND_IN_HEADER])
          recordApiAnswer({
            method: 'POST',
            path: url.pathname,
            status,
            contentType: res.headers['content-type'] ?? null,
            text: async () => text,
          });
        let id: string | undefined;
        try {
          id = (JSON.parse(text) as { id?: unknown }).id as string | undefined;
        } catch {}
        if (status >= 200 && status < 300 && typeof id !== 'string') {
          return finish({ label: `${status}-without-id`, retriable: false });
        }
        finish({ label: String(status), id, retriable: RETRIABLE_STATUS.has(status), ...retryAfter(res.headers) });
      });
    });
    req.end(body);
  });
}

const retryAfter = (headers: Record<string, string | string[] | undefined>) => {
  const ms = retryAfterMs(headers['retry-after']);
  return ms === undefined ? {} : { retryAfterMs: ms };
};

/**
 * Sends `count` JSON submissions to `/f/{formKey}` over `connections` keep-alive connections, each with its own
 * `Idempotency-Key`, retrying errors, timeouts and 5xx/429 with the same key and exponential backoff (at least the
 * `Retry-After` it was given), as a real client would. Every loop is bounded by `maxAttempts`, `retryBudgetMs` and
 * `deadlineMs`.
 */
export function startLoad(opts: LoadOptions): Load {
  const maxAttempts = opts.maxAttempts ?? 40;
  const retryBudgetMs = opts.retryBudgetMs ?? 90_000;
  const attemptTimeoutMs = opts.attemptTimeoutMs ?? 15_000;
  const url = new URL(`/f/${opts.formKey}`, opts.baseUrl);
  if (url.hostname !== '127.0.0.1') throw new Error(`load goes to loopback only, not ${url.hostname}`);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.connections });
  const startedAt = Date.now();
  const deadline = startedAt + (opts.deadlineMs ?? 180_000);
  const entries: LedgerEntry[] = Array.from({ length: opts.count }, (_, i) => ({
    key: `${opts.runId}-${String(i).padStart(6, '0')}`,
    outcome: 'unsent',
    attempts: [],
  }));
  let next = 0;
  let finished = 0;
  let acked = 0;

  const submit = async (entry: LedgerEntry, index: number) => {
    const body = JSON.stringify({ ledger: entry.key, n: String(index), message: 'reliability ledger' });
    const giveUpAt = Math.min(deadline, Date.now() + retryBudgetMs);
    for (let attempt = 1; attempt <= maxAttempts && Date.now() < giveUpAt; attempt++) {
      const answer = await post(url, entry.key, body, agent, attemptTimeoutMs);
      entry.attempts.push(answer.label);
      entry.outcome = 'unknown';
      if (answer.id !== undefined && answer.label.startsWith('2')) {
        entry.outcome = 'acked';
        entry.id = answer.id;
        acked++;
        return;
      }
      if (!answer.retriable) return;
      const backoff = Math.min(4_000, 200 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      await sleep(Math.min(Math.max(backoff, answer.retryAfterMs ?? 0), Math.max(0, giveUpAt - Date.now())));
    }
  };

  const worker = async () => {
    for (let i = next++; i < opts.count && Date.now() < deadline; i = next++) {
      if (opts.ratePerSecond) {
        const due = startedAt + (i * 1000) / opts.ratePerSecond;
        if (due > Date.now()) await sleep(due - Date.now());
      }
      await submit(entries[i] as LedgerEntry, i);
      finished++;
    }
  };

  const done = Promise.all(Array.from({ length: opts.connections }, worker)).then(() => {
    agent.destroy();
    return { entries, startedAt, endedAt: Date.now() };
  });
  return { progress: () => ({ finished, acked }), done };
}

/** Waits until `count` submissions of `load` have finished (bounded by `timeoutMs`). */
export async function untilFinished(load: Load, count: number, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (load.progress().finished < count) {
    if (Date.now() > deadline) {
      throw new Error(`load: ${load.progress().finished} of ${count} submissions finished after ${timeoutMs} ms`);
    }
    await sleep(50);
  }
}
