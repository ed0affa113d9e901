import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IngestAccepted, TimeStampDto } from '@formgate/contracts';
import { AppError, type Logger, type Metrics, secondsSince, type Tracing } from '@formgate/kit';
import { IngestErrors } from './ingest-errors.ts';
import { findForm, type ReceiveDeps, receiveSubmission } from './receive-submission.ts';
import { CORS_HEADERS, escapeHtml, page, sendError, sendHtml, sendJson, sendRedirect, wantsJson } from './respond.ts';
import type { Altcha } from './spam/altcha.ts';
import { TIME_TRAP_FIELD, type TimeStamps } from './spam/time-trap.ts';
import { grantUploads, receiveUpload, UPLOAD_CORS_HEADERS } from './uploads/direct-uploads.ts';

const FORM_PATH = /^\/f\/([A-Za-z0-9_-]{1,64})\/?$/;
const ALTCHA_PATH = /^\/f\/([A-Za-z0-9_-]{1,64})\/altcha\/?$/;
const TIMESTAMP_PATH = /^\/f\/([A-Za-z0-9_-]{1,64})\/timestamp\/?$/;
const UPLOADS_PATH = /^\/f\/([A-Za-z0-9_-]{1,64})\/uploads\/?$/;
const UPLOAD_PATH = /^\/f\/([A-Za-z0-9_-]{1,64})\/uploads\/([A-Za-z0-9_-]{8,128})$/;

/** 405 `METHOD_NOT_ALLOWED` with `Allow`: the methods the path has (its CORS preflight aside). */
function notAllowed(req: IncomingMessage, res: ServerResponse, allow: string, use: string) {
  res.setHeader('allow', allow);
  sendError(req, res, IngestErrors.methodNotAllowed(use));
}

function thanksPage(req: IncomingMessage, res: ServerResponse, search: URLSearchParams) {
  const referer = search.get('referer');
  let back: URL | null = null;
  try {
    back = referer ? new URL(referer) : null;
  } catch {
    back = null;
  }
  if (!back || (back.protocol !== 'http:' && back.protocol !== 'https:')) {
    return sendError(req, res, IngestErrors.invalidReferer());
  }
  const link = `<a href="${escapeHtml(back.href)}" rel="noopener noreferrer">Go back</a>`;
  sendHtml(res, 200, page('Thank you', `<h1>Thank you!</h1><p>Your submission was received.</p><p>${link}</p>`));
}

/**
 * The public endpoint as a raw `node:http` handler (no framework on the hot path): `POST /f/{key}`, its CORS
 * preflight, `GET /f/{key}/altcha` (an ALTCHA challenge for the form), `GET /f/{key}/timestamp` (the time-trap's
 * signed render timestamp) and `GET /form/submission-received`. Cookies are never read.
 */
export function createIngestHandler(
  deps: ReceiveDeps & { altcha?: Altcha; stamps: TimeStamps; metrics?: Metrics; tracing?: Tracing | undefined },
  logger: Logger,
) {
  const { metrics } = deps;
  /** Counts the request in `formgate_http_*` under its route template (never the key) once its answer is sent. */
  const observe = (req: IncomingMessage, res: ServerResponse, route: string) => {
    if (!metrics) return;
    const started = process.hrtime.bigint();
    res.once('finish', () =>
      metrics.observeHttp('ingest', route, req.method ?? 'GET', res.statusCode, secondsSince(started)),
    );
  };
  const altchaChallenge = async (req: IncomingMessage, res: ServerResponse, key: string) => {
    try {
      const form = findForm(deps, key);
      if (!deps.altcha) throw IngestErrors.formNotFound();
      sendJson(res, 200, await deps.altcha.challenge(form.id));
    } catch (err) {
      if (!(err instanceof AppError)) logger.error({ err, formKey: key }, 'unexpected ALTCHA challenge failure');
      sendError(req, res, err instanceof AppError ? err : IngestErrors.unavailable(err));
    }
  };

  /** A fresh signed timestamp for the form's `_formgate_ts` field (CORS open; never cached). */
  const timestamp = (req: IncomingMessage, res: ServerResponse, key: string) => {
    try {
      const form = findForm(deps, key);
      const value = deps.stamps.issue(form, deps.clock.now());
      const body: TimeStampDto = { field: TIME_TRAP_FIELD, value };
      sendJson(res, 200, body);
    } catch (err) {
      sendError(req, res, err instanceof AppError ? err : IngestErrors.unavailable(err));
    }
  };

  /** `POST /f/{key}/uploads`: where to PUT a submission's files (issue 33). */
  const uploads = async (req: IncomingMessage, res: ServerResponse, key: string) => {
    try {
      sendJson(res, 201, await grantUploads(deps, req, key), UPLOAD_CORS_HEADERS);
    } catch (err) {
      if (!(err instanceof AppError)) logger.error({ err, formKey: key }, 'unexpected upload grant failure');
      sendError(req, res, err instanceof AppError ? err : IngestErrors.unavailable(err));
    }
  };
  /** `PUT /f/{key}/uploads/{blobKey}?token=`: one file into the blob store. */
  const upload = async (req: IncomingMessage, res: ServerResponse, key: string, blobKey: string, token: string) => {
    try {
      await receiveUpload(deps, req, key, blobKey, token);
      res.writeHead(204, { ...UPLOAD_CORS_HEADERS, 'cache-control': 'no-store' }).end();
    } catch (err) {
      if (!(err instanceof AppError)) logger.error({ err, formKey: key }, 'unexpected upload failure');
      sendError(req, res, err instanceof AppError ? err : IngestErrors.unavailable(err));
    }
  };

  // Every way into `receive` is counted here (a hot path may route to it before the dispatch below).
  const receive = async (req: IncomingMessage, res: ServerResponse, key: string) => {
    observe(req, res, '/f/:key');
    try {
      const outcome = await receiveSubmission(deps, req, key);
      if ('rejected' in outcome) {
        metrics?.countSubmission('rejected', outcome.rejected.code);
        return sendError(req, res, outcome.rejected, outcome.errorRedirect);
      }
      const { accepted } = outcome;
      metrics?.countSubmission(accepted.spam ? 'spam' : 'accepted');
      const body: IngestAccepted = { ok: true, next: accepted.next, id: accepted.id };
      if (wantsJson(req)) sendJson(res, 200, body);
      else sendRedirect(res, accepted.next);
    } catch (err) {
      if (!(err instanceof AppError)) logger.error({ err, formKey: key }, 'unexpected ingest failure');
      const answer = err instanceof AppError ? err : IngestErrors.unavailable(err);
      metrics?.countSubmission('rejected', answer.code);
      sendError(req, res, answer);
    }
  };

  const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
    // The hot path: a bare `/f/{key}` needs no URL parsing (the pattern admits no dot segment or escape).
    const direct = req.url ? FORM_PATH.exec(req.url) : null;
    if (direct?.[1] && req.method === 'POST') return void receive(req, res, direct[1]);
    const url = new URL(req.url ?? '/', 'http://ingest.invalid');
    const match = FORM_PATH.exec(url.pathname);
    const altchaMatch = match ? null : ALTCHA_PATH.exec(url.pathname);
    const stampMatch = match || altchaMatch ? null : TIMESTAMP_PATH.exec(url.pathname);
    const uploadsMatch = match || altchaMatch || stampMatch ? null : UPLOADS_PATH.exec(url.pathname);
    const uploadMatch = match || altchaMatch || stampMatch || uploadsMatch ? null : UPLOAD_PATH.exec(url.pathname);
    if (metrics && !(match?.[1] && req.method === 'POST')) {
      const route = match
        ? '/f/:key'
        : altchaMatch
          ? '/f/:key/altcha'
          : stampMatch
            ? '/f/:key/timestamp'
            : uploadsMatch
              ? '/f/:key/uploads'
              : uploadMatch
                ? '/f/:key/uploads/:id'
                : url.pathname === '/form/submission-received'
                  ? url.pathname
                  : 'unmatched';
      observe(req, res, route);
    }
    if (altchaMatch?.[1]) {
      if (req.method === 'GET') void altchaChallenge(req, res, altchaMatch[1]);
      else if (req.method === 'OPTIONS') {
        res.writeHead(204, { ...CORS_HEADERS, 'access-control-allow-methods': 'GET, OPTIONS' }).end();
      } else notAllowed(req, res, 'GET', 'Use GET for an ALTCHA challenge');
    } else if (stampMatch?.[1]) {
      if (req.method === 'GET' || req.method === 'HEAD') timestamp(req, res, stampMatch[1]);
      else if (req.method === 'OPTIONS') {
        res.writeHead(204, { ...CORS_HEADERS, 'access-control-allow-methods': 'GET, HEAD, OPTIONS' }).end();
      } else notAllowed(req, res, 'GET, HEAD', 'Use GET for a timestamp');
    } else if (uploadsMatch?.[1]) {
      if (req.method === 'POST') void uploads(req, res, uploadsMatch[1]);
      else if (req.method === 'OPTIONS') res.writeHead(204, UPLOAD_CORS_HEADERS).end();
      else notAllowed(req, res, 'POST', 'Use POST to ask where to upload files');
    } else if (uploadMatch?.[1] && uploadMatch[2]) {
      if (req.method === 'PUT')
        void upload(req, res, uploadMatch[1], uploadMatch[2], url.searchParams.get('token') ?? '');
      else if (req.method === 'OPTIONS') res.writeHead(204, UPLOAD_CORS_HEADERS).end();
      else notAllowed(req, res, 'PUT', 'Use PUT to upload a file');
    } else if (match?.[1]) {
      if (req.method === 'POST') {
        void receive(req, res, match[1]);
      } else if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS_HEADERS).end();
      } else {
        notAllowed(req, res, 'POST', 'Use POST to submit a form');
      }
    } else if (url.pathname === '/form/submission-received' && (req.method === 'GET' || req.method === 'HEAD')) {
      thanksPage(req, res, url.searchParams);
    } else {
      sendError(req, res, IngestErrors.formNotFound());
    }
  };
  // Tracing off (the default): the handler is `dispatch` itself, nothing added to the hot path (ADR 51).
  const traces = deps.tracing;
  if (!traces) return dispatch;
  return (req: IncomingMessage, res: ServerResponse) =>
    traces.server(
      req.method ?? 'GET',
      () => routeOf(req.url),
      res,
      req.headers,
      () => dispatch(req, res),
    );
}

/** The route template of a request to this handler, for its span (never the form's key). */
function routeOf(url: string | undefined): string {
  const path = (url ?? '/').split('?', 1)[0] ?? '/';
  if (FORM_PATH.test(path)) return '/f/:key';
  if (ALTCHA_PATH.test(path)) return '/f/:key/altcha';
  if (TIMESTAMP_PATH.test(path)) return '/f/:key/timestamp';
  if (UPLOADS_PATH.test(path)) return '/f/:key/uploads';
  if (UPLOAD_PATH.test(path)) return '/f/:key/uploads/:id';
  return path === '/form/submission-received' ? path : 'unmatched';
}
