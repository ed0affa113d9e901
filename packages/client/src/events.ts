import { errorFromResponse, FormgateError } from './errors.ts';
import type { components } from './openapi.ts';

/** A submission's event: the body its Standard Webhooks delivery carries (docs/webhooks.md). */
export interface LiveSubmissionPayload {
  type: 'submission.created' | 'submission.spam';
  timestamp: string;
  data: Omit<components['schemas']['Submission'], 'files'> & {
    files: unknown[];
    form: { id: string; name: string };
  };
}

/** A delivery's outcome (an email or a webhook of a submission). */
export interface LiveDeliveryPayload {
  type: 'delivery.succeeded' | 'delivery.failed';
  timestamp: string;
  data: {
    deliveryId: string;
    formId: string;
    submissionId: string;
    channel: 'email' | 'webhook';
    purpose: string;
    /** The recipient address, or the webhook endpoint's id. */
    target: string;
    attempt: number;
    /** For `delivery.failed`: no attempt will follow. */
    final: boolean;
    at: string;
  };
}

/** One event of `GET /api/v1/events`: `data` is the exact text the server sent (what a webhook body would be). */
export type LiveEvent = LiveSubmissionEvent | LiveDeliveryEvent;

export interface LiveSubmissionEvent {
  id: string;
  type: LiveSubmissionPayload['type'];
  data: string;
  payload: LiveSubmissionPayload;
}

export interface LiveDeliveryEvent {
  id: string;
  type: LiveDeliveryPayload['type'];
  data: string;
  payload: LiveDeliveryPayload;
}

export interface EventStreamOptions {
  baseUrl: string;
  /** An organization API key (a read key is enough). */
  apiKey: string;
  /** Only this form's events. */
  formId?: string;
  /** Resume after this event (`LiveEvent.id`). */
  lastEventId?: string;
  /** Ends the stream (the iterator returns). */
  signal?: AbortSignal;
  /** Called once the server accepted the stream: every event from then on is delivered. */
  onOpen?: () => void;
  fetch?: typeof fetch;
}

/** Parses one SSE block (lines up to a blank line); null for a comment-only block (a heartbeat). */
function parseBlock(block: string): LiveEvent | null {
  let id = '';
  let type = '';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    if (colon === 0) continue;
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
  }
  if (!type || data.length === 0) return null;
  const text = data.join('\n');
  return { id, type, data: text, payload: JSON.parse(text) } as LiveEvent;
}

/**
 * The organization's live events (`GET /api/v1/events`, server-sent events) over one connection, as an async
 * iterator. It returns when the server ends the stream or `signal` aborts; a refusal throws a `FormgateError`.
 * Reconnect with the last event's id as `lastEventId` to resume without a gap.
 */
export async function* streamEvents(options: EventStreamOptions): AsyncGenerator<LiveEvent> {
  const query = options.formId ? `?formId=${encodeURIComponent(options.formId)}` : '';
  const headers: Record<string, string> = { accept: 'text/event-stream', 'x-api-key': options.apiKey };
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(`${options.baseUrl.replace(/\/$/, '')}/api/v1/events${query}`, {
      headers,
      signal: options.signal,
    });
  } catch (cause) {
    if (options.signal?.aborted) return;
    throw new FormgateError({ status: 0, code: 'NETWORK_ERROR', message: 'Formgate could not be reached', cause });
  }
  if (!res.ok || !res.body) throw await errorFromResponse(res);
  options.onOpen?.();
  // Cancelling the body, not only aborting the request, is what lets go of the connection.
  options.signal?.addEventListener('abort', () => void res.body?.cancel().catch(() => {}), { once: true });
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const event = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) yield event;
      }
    }
  } catch (cause) {
    if (options.signal?.aborted) return;
    throw new FormgateError({ status: 0, code: 'NETWORK_ERROR', message: 'The event stream was cut', cause });
  }
}
