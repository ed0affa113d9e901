import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  DEFAULT_FORM_SETTINGS,
  type DeliveryDto,
  effectiveRetention,
  type FormRetentionDto,
  type NotificationEmailDto,
  type WebhookEndpointDto,
} from '@formgate/contracts';
import type { DailyCount, FormWithCountsDto } from '../src/features/forms/forms.queries.ts';
import type { Submission } from '../src/features/submissions/submissions.queries.ts';
import { startServer } from './render-app.tsx';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

export const aForm = (over: Partial<FormWithCountsDto> = {}): FormWithCountsDto => ({
  id: 'f1',
  name: 'Contact',
  slug: 'contact',
  key: 'k3y',
  endpoint: '/f/k3y',
  settings: { ...DEFAULT_FORM_SETTINGS, spam: null },
  createdAt: '2026-07-01T10:00:00.000Z',
  updatedAt: '2026-07-01T10:00:00.000Z',
  submissionCount: 0,
  spamCount: 0,
  lastSubmissionAt: null,
  heldCount: 0,
  blockedCount: 0,
  ...over,
});

export const aDelivery = (id: string, over: Partial<DeliveryDto> = {}): DeliveryDto => ({
  id,
  formId: 'f1',
  submissionId: 's1',
  channel: 'email',
  purpose: 'notification',
  target: 'team@example.com',
  targetId: null,
  status: 'succeeded',
  attempts: 1,
  lastResponse: { code: '250', text: 'OK queued' },
  messageId: `<${id}@formgate.test>`,
  nextAttemptAt: null,
  resendOf: null,
  createdAt: '2026-07-02T10:00:01.000Z',
  updatedAt: '2026-07-02T10:00:01.000Z',
  ...over,
});

export const aWebhook = (id: string, over: Partial<WebhookEndpointDto> = {}): WebhookEndpointDto => ({
  id,
  formId: 'f1',
  url: `https://hooks.example/${id}`,
  kind: 'standard',
  events: ['submission.created'],
  enabled: true,
  disabledReason: null,
  secretHint: 'AbC=',
  previousSecretExpiresAt: null,
  createdAt: '2026-07-01T10:00:00.000Z',
  updatedAt: '2026-07-01T10:00:00.000Z',
  stats: { recent: 0, succeeded: 0, failed: 0, successRate: null },
  ...over,
});

export const aSubmission = (id: string, over: Partial<Submission> = {}): Submission => ({
  id,
  formId: 'f1',
  createdAt: '2026-07-02T10:00:00.000Z',
  fields: [{ name: 'email', value: `${id}@example.com` }],
  files: [],
  spam: false,
  spamReasons: [],
  held: false,
  origin: null,
  referer: null,
  contentDropped: false,
  ...over,
});

/**
 * `settings.spam` as the forms service answers it after a PATCH: a captcha's secret never comes back, only
 * `secretSet`; a captcha without `secret` keeps the stored one.
 */
const readableSpam = (spam: FormWithCountsDto['settings']['spam'], before: FormWithCountsDto['settings']['spam']) => {
  if (!spam?.captcha) return spam;
  const { secret, ...captcha } = spam.captcha as NonNullable<typeof spam.captcha> & { secret?: string | null };
  const kept = secret === undefined && (before?.captcha as { secretSet?: boolean } | null | undefined)?.secretSet;
  return { ...spam, captcha: { ...captcha, secret: null, secretSet: typeof secret === 'string' || kept === true } };
};

/**
 * The forms API over real HTTP, answering from memory like the forms service does (newest first, keyset cursors
 * as positions), and recording every request. `missing` picks requests answered 404 `NOT_FOUND`, as a server
 * without those routes does (e.g. `DELETE /api/v1/forms/{formId}` before it exists).
 */
export async function startFormsApi(init: {
  forms?: FormWithCountsDto[];
  submissions?: Submission[];
  stats?: (Omit<DailyCount, 'blocked'> & { blocked?: number })[];
  statsTo?: string;
  /** The delivery log, every submission's (the notifications API). */
  deliveries?: DeliveryDto[];
  missing?: (method: string, path: string) => boolean;
  /** Answered by `GET /api/v1/notification-emails` (the form settings' recipients). */
  notificationEmails?: NotificationEmailDto[];
  /** Every form's webhook endpoints (the notifications API); secrets are `whsec_test<n>`. */
  webhooks?: WebhookEndpointDto[];
  /** `GET /api/v1/orgs/settings` (the organization's spam defaults for the form settings). */
  orgSettings?: Record<string, unknown>;
  /**
   * The organization's default retention and the plan's maximum (none by default), and what
   * `GET /api/v1/forms/{formId}/retention` says of the oldest submission; what is in force follows the form's own
   * setting as saved. A PATCH of more days than the plan allows is refused as the forms service refuses it.
   */
  retention?: Partial<
    Pick<FormRetentionDto, 'organizationDays' | 'planMaxDays' | 'oldestSubmissionAt' | 'nextDeletionAt'>
  >;
  /** Answers a request with this error instead (e.g. a PATCH the server refuses). */
  refuse?: (method: string, path: string) => { status: number; code: string; message: string } | undefined;
}) {
  const state = {
    forms: [...(init.forms ?? [])],
    submissions: [...(init.submissions ?? [])],
    deliveries: [...(init.deliveries ?? [])],
    webhooks: [...(init.webhooks ?? [])],
    secrets: 0,
  };
  const requests: RecordedRequest[] = [];
  const json = (res: ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) return res.writeHead(status).end();
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const notFound = (res: ServerResponse, code = 'NOT_FOUND', message = 'Not found') =>
    json(res, 404, { error: { code, message, requestId: 'r1' } });

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    const body = raw ? JSON.parse(raw) : undefined;
    requests.push({ method, path: url.pathname, query: url.searchParams, body });
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent); // api v1 forms :id ...
    if (init.missing?.(method, url.pathname)) return notFound(res);
    const refusal = init.refuse?.(method, url.pathname);
    if (refusal) {
      const { status, ...error } = refusal;
      return json(res, status, { error: { ...error, requestId: 'r1' } });
    }
    if (url.pathname === '/api/v1/orgs/settings' && method === 'GET') {
      return json(res, 200, init.orgSettings ?? { submission_notification_email: null, email_management: false });
    }
    if (url.pathname === '/api/v1/notification-emails' && method === 'GET') {
      return json(res, 200, { data: init.notificationEmails ?? [] });
    }
    if (parts[0] !== 'api' || parts[1] !== 'v1' || parts[2] !== 'forms') return notFound(res);
    if (parts.length === 3 && method === 'GET') {
      const slug = url.searchParams.get('slug');
      return json(res, 200, { data: state.forms.filter((f) => !slug || f.slug === slug) });
    }
    if (parts.length === 3 && method === 'POST') {
      const form = aForm({ id: `f${state.forms.length + 1}`, name: body.name, slug: body.slug ?? 'new-form' });
      state.forms.push(form);
      return json(res, 201, form);
    }
    const form = state.forms.find((f) => f.id === parts[3]);
    if (!form) return notFound(res, 'FORMS_FORM_NOT_FOUND', 'Form not found');
    const ofForm = state.submissions.filter((s) => s.formId === form.id);
    if (parts.length === 4 && method === 'DELETE') {
      state.forms = state.forms.filter((f) => f !== form);
      return json(res, 204);
    }
    const { organizationDays = null, planMaxDays = null } = init.retention ?? {};
    if (parts.length === 4 && method === 'PATCH') {
      const days = body.settings?.retentionDays;
      if (typeof days === 'number' && planMaxDays !== null && days > planMaxDays) {
        const message = `The organization's plan keeps submissions at most ${planMaxDays} days`;
        return json(res, 403, { error: { code: 'PLAN_LIMIT_REACHED', message, requestId: 'r1' } });
      }
      const notifications = { ...form.settings.notifications, ...body.settings?.notifications };
      const spam =
        body.settings?.spam === undefined ? form.settings.spam : readableSpam(body.settings.spam, form.settings.spam);
      Object.assign(form, {
        name: body.name ?? form.name,
        settings: { ...form.settings, ...body.settings, notifications, spam },
      });
      return json(res, 200, form);
    }
    if (parts.length === 5 && parts[4] === 'retention' && method === 'GET') {
      const formDays = form.settings.retentionDays;
      const retention: FormRetentionDto = {
        ...effectiveRetention(formDays, organizationDays, planMaxDays),
        formDays,
        organizationDays,
        planMaxDays,
        oldestSubmissionAt: init.retention?.oldestSubmissionAt ?? null,
        nextDeletionAt: init.retention?.nextDeletionAt ?? null,
      };
      return json(res, 200, retention);
    }
    if (parts[4] === 'webhooks') return webhooks(res, form, method, parts, body);
    if (parts[4] === 'stats') {
      return json(res, 200, { days: 30, from: '', to: init.statsTo ?? '2026-07-30', data: init.stats ?? [] });
    }
    if (parts.length === 5 && parts[4] === 'submissions') {
      const limit = Number(url.searchParams.get('limit') ?? 25);
      const start = Number(url.searchParams.get('cursor') ?? 0);
      const page = ofForm.slice(start, start + limit);
      const next = start + limit < ofForm.length ? String(start + limit) : null;
      return json(res, 200, { data: page, nextCursor: next });
    }
    if (parts[4] === 'deliveries' && parts[5] === 'replay' && method === 'POST') {
      return json(res, 200, { replayed: state.deliveries.filter((d) => d.status === 'failed').length });
    }
    if (parts[5] === 'bulk' && method === 'POST') {
      const data = body.ids.map((id: string) => ({ id, result: 'changed' }));
      if (body.action === 'delete') state.submissions = state.submissions.filter((s) => !body.ids.includes(s.id));
      else for (const s of state.submissions) if (body.ids.includes(s.id)) s.spam = body.action === 'spam';
      return json(res, 200, { action: body.action, data });
    }
    if (parts[5] === 'export') {
      if (form.settings.storeContent === false) {
        const message = 'This form keeps no submission content, so there is nothing to export';
        return json(res, 409, { error: { code: 'FORMS_NOTHING_TO_EXPORT', message, requestId: 'r1' } });
      }
      res
        .writeHead(200, {
          'content-type': 'text/csv',
          'content-disposition': `attachment; filename="${form.slug}-submissions.csv"`,
        })
        .end('id\r\n');
      return;
    }
    const submission = ofForm.find((s) => s.id === parts[5]);
    if (!submission) return notFound(res, 'FORMS_SUBMISSION_NOT_FOUND', 'Submission not found');
    if (parts.length === 6 && method === 'GET') return json(res, 200, submission);
    if (parts.length === 6 && method === 'PATCH') {
      submission.spam = body.spam;
      return json(res, 200, submission);
    }
    if (parts.length === 6 && method === 'DELETE') {
      state.submissions = state.submissions.filter((s) => s !== submission);
      return json(res, 204);
    }
    if (parts[6] === 'deliveries') {
      const log = state.deliveries.filter((d) => d.submissionId === submission.id);
      if (parts.length === 7 && method === 'GET') return json(res, 200, { data: log });
      const original = log.find((d) => d.id === parts[7]);
      if (!original || parts[8] !== 'resend' || method !== 'POST') return notFound(res);
      const resent: DeliveryDto = {
        ...original,
        id: `${original.id}-r`,
        status: 'succeeded',
        attempts: 1,
        resendOf: original.id,
      };
      state.deliveries.push(resent);
      return json(res, 202, resent);
    }
    if (parts[6] === 'files' && parts[8] === 'link') {
      return json(res, 200, { url: `/api/v1/files/token-${parts[7]}`, expiresAt: '2026-07-30T00:05:00.000Z' });
    }
    return notFound(res);
  };

  /** `…/webhooks[/{id}[/rotate-secret]]`, as the notifications service answers them. */
  const webhooks = (
    res: ServerResponse,
    form: FormWithCountsDto,
    method: string,
    parts: string[],
    body: Partial<WebhookEndpointDto>,
  ) => {
    const secret = () => `whsec_test${++state.secrets}`;
    if (parts.length === 5 && method === 'GET') {
      return json(res, 200, { data: state.webhooks.filter((w) => w.formId === form.id) });
    }
    if (parts.length === 5 && method === 'POST') {
      if (new URL(String(body.url)).hostname === '127.0.0.1') {
        const message = 'Webhooks cannot be sent to localhost, loopback or private addresses';
        return json(res, 422, { error: { code: 'NOTIFICATIONS_WEBHOOK_TARGET_FORBIDDEN', message, requestId: 'r1' } });
      }
      const created = { ...aWebhook(`w${state.webhooks.length + 1}`, { formId: form.id, ...body }), secret: secret() };
      const { secret: shown, ...stored } = created;
      state.webhooks.push({ ...stored, secretHint: shown.slice(-4) });
      return json(res, 201, created);
    }
    const hook = state.webhooks.find((w) => w.id === parts[5] && w.formId === form.id);
    if (!hook) return notFound(res, 'NOTIFICATIONS_WEBHOOK_NOT_FOUND', 'Webhook endpoint not found');
    if (parts.length === 6 && method === 'PATCH') {
      Object.assign(hook, body, body.enabled === undefined ? {} : { disabledReason: null });
      return json(res, 200, hook);
    }
    if (parts.length === 6 && method === 'DELETE') {
      state.webhooks = state.webhooks.filter((w) => w !== hook);
      return json(res, 204);
    }
    if (parts[6] === 'rotate-secret' && method === 'POST') {
      const shown = secret();
      Object.assign(hook, { secretHint: shown.slice(-4), previousSecretExpiresAt: '2026-07-31T10:00:00.000Z' });
      return json(res, 200, { ...hook, secret: shown });
    }
    return notFound(res);
  };

  const server = await startServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => handle(req, res, raw));
  });
  return { ...server, requests, state };
}
