import { EventStreamQuerySchema } from '../live-events.ts';
import { defineRoute, orgRoute } from './define-route.ts';

/** The organization's live events (`formgate listen`): the notifications service. */
export const eventRoutes = {
  streamEvents: defineRoute({
    ...orgRoute('GET', '/api/v1/events', 'notifications'),
    tag: 'Events',
    summary: "The organization's new submissions and delivery outcomes, live (server-sent events)",
    description:
      'A `text/event-stream` that stays open: one event per new submission (`submission.created`, ' +
      '`submission.spam`; `data` is the body its Standard Webhooks delivery carries) and per delivery outcome ' +
      '(`delivery.succeeded`, `delivery.failed`; `data` is `{type, timestamp, data}` with the delivery event), from ' +
      'the moment the stream opens. Each event has an `id:`; reconnecting with `Last-Event-ID` resumes after it. A ' +
      'comment line every 15 s keeps an idle stream alive. At most 5 streams per organization are open at once ' +
      '(429 `NOTIFICATIONS_EVENT_STREAMS_LIMIT_REACHED`). See docs/listen.md.',
    request: { query: EventStreamQuerySchema },
    responses: [
      {
        status: 200,
        description: 'The stream (`id:`, `event:`, `data:` lines per event; `:` comments as heartbeats)',
        content: { 'text/event-stream': { type: 'string' } },
      },
    ],
    errors: ['FORMS_FORM_NOT_FOUND', 'NOTIFICATIONS_EVENT_STREAMS_LIMIT_REACHED'],
  }),
};
