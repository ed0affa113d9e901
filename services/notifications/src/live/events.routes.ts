import { EVENT_STREAM_HEARTBEAT_MS, MAX_EVENT_STREAMS_PER_ORG } from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, endOnDrain, type IdentityVerifier, identityOf, mountRoute, requireIdentity } from '@formgate/kit';
import { type Request, type Response, Router } from 'express';
import { createLiveFeed, type LiveEvent, type LiveFeedDeps } from './live-feed.ts';
import { decodeCursor, encodeCursor, type StreamCursor } from './stream-cursor.ts';

export type EventsRoutesDeps = LiveFeedDeps & {
  identity: IdentityVerifier;
  /** Default `EVENT_STREAM_HEARTBEAT_MS`. */
  heartbeatMs?: number;
};

/** The streams open per organization on this instance, and a way to end them all on shutdown. */
function createStreamSlots() {
  const open = new Map<string, number>();
  const closers = new Set<() => void>();
  return {
    take(orgId: string, close: () => void) {
      const n = open.get(orgId) ?? 0;
      if (n >= MAX_EVENT_STREAMS_PER_ORG) throw new AppError('NOTIFICATIONS_EVENT_STREAMS_LIMIT_REACHED');
      open.set(orgId, n + 1);
      closers.add(close);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        closers.delete(close);
        const left = (open.get(orgId) ?? 1) - 1;
        if (left > 0) open.set(orgId, left);
        else open.delete(orgId);
      };
    },
    closeAll: () => {
      for (const close of [...closers]) close();
    },
  };
}

const sseEvent = (event: LiveEvent, cursor: StreamCursor) =>
  `id: ${encodeCursor(cursor)}\nevent: ${event.type}\ndata: ${event.data}\n\n`;

/**
 * `GET /api/v1/events`: the organization's live events as `text/event-stream` (`live-feed.ts`), resumed after a
 * `Last-Event-ID`. The headers go out at once (the gateway relays the answer as it comes, ADR 12); a comment line
 * every `heartbeatMs` keeps an idle stream alive through proxies. A draining server ends its streams (`endOnDrain`);
 * `closeAll()` ends every stream (the service stopping).
 */
export function eventsRoutes(deps: EventsRoutesDeps) {
  const router = Router();
  const feed = createLiveFeed(deps);
  const slots = createStreamSlots();

  mountRoute(router, API_ROUTES.streamEvents, requireIdentity(deps.identity), async (req: Request, res: Response) => {
    const { orgId } = identityOf(req);
    const { formId } = API_ROUTES.streamEvents.request.query.parse(req.query);
    if (formId && !(await deps.stores.views.getForm({ orgId }, formId))) throw new AppError('FORMS_FORM_NOT_FOUND');
    const release = slots.take(orgId, () => res.end());
    // Events that arrive before the headers are out wait here; a client gone meanwhile stops what was opened.
    let held: string[] | null = [];
    let following: { stop: () => Promise<void> } | undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    const stop = () => {
      clearInterval(heartbeat);
      release();
      void following?.stop().catch((err: unknown) => deps.logger.warn({ err }, 'event stream did not stop cleanly'));
    };
    res.on('close', stop);
    const onEvent = (event: LiveEvent, cursor: StreamCursor) => {
      if (held) held.push(sseEvent(event, cursor));
      else res.write(sseEvent(event, cursor));
    };
    try {
      following = await feed.follow({ orgId, formId, from: decodeCursor(req.header('last-event-id')), onEvent });
    } catch (err) {
      release();
      throw err;
    }
    if (res.destroyed) return stop();
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.write(`: stream open\n\n${held.join('')}`);
    held = null;
    heartbeat = setInterval(() => res.write(': heartbeat\n\n'), deps.heartbeatMs ?? EVENT_STREAM_HEARTBEAT_MS);
    // A draining server (shutdown) ends the stream rather than waiting for a client that may never leave.
    endOnDrain(res);
  });

  return { router, closeAll: slots.closeAll };
}
