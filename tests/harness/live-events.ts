import { type EventStreamOptions, type LiveEvent, streamEvents } from '@formgate/client';

/**
 * An open live stream (`GET /api/v1/events`) whose events are collected as they come. `open` resolves once the
 * server accepted it, `ended` once it ended (whichever side ended it); `close()` ends it.
 */
export function followEvents(options: Omit<EventStreamOptions, 'signal' | 'onOpen'>) {
  const events: LiveEvent[] = [];
  const abort = new AbortController();
  let opened: () => void = () => {};
  const open = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const ended = (async () => {
    for await (const e of streamEvents({ ...options, signal: abort.signal, onOpen: opened })) events.push(e);
  })();
  return {
    events,
    open,
    ended,
    close: async () => {
      abort.abort();
      await ended;
    },
  };
}

/** The events of one submission in a stream, whichever topic they came from. */
export const ofSubmission = (events: LiveEvent[], id: string) =>
  events.filter((e) => ('submissionId' in e.payload.data ? e.payload.data.submissionId : e.payload.data.id) === id);
