import { authorize } from '@formgate/contracts';
import { API_ROUTE_LIST, type ApiRoute } from '@formgate/contracts/routes';
import { eventually } from '@formgate/kit/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BrowserSession } from '../harness/browser-session.ts';
import type { TargetRef } from './target.ts';

/**
 * The tenant-isolation matrix, generated from the gateway's route table: every organization-scoped route × every
 * kind of caller. A route without a case below fails the suite.
 */
interface Fixture {
  form: { id: string; key: string };
  submissionId: string;
  /** The `blobKey` of the submission's one file. */
  fileId: string;
  newKeyId(): Promise<string>;
  /** A form of organization A made for one call (one that deletes it). */
  newFormId(): Promise<string>;
  /** A submission of the fixture's form made for one call (one that deletes it). */
  newSubmissionId(): Promise<string>;
  /** A delivery of organization A (an autoresponse of a submission of its own form), made once. */
  delivery(): Promise<{ formId: string; submissionId: string; deliveryId: string }>;
  /** A notification address of organization A made for one call (one that deletes it). */
  newNotificationEmailId(): Promise<string>;
  /** A webhook endpoint of organization A, on a form of its own that gets no submissions, made once. */
  webhook(): Promise<{ formId: string; webhookId: string }>;
  /** Another endpoint on that form, made for one call (one that deletes it). */
  newWebhook(): Promise<{ formId: string; webhookId: string }>;
  /** An erasure of organization A (of an address none of its submissions holds), made once. */
  erasure(): Promise<{ erasureId: string }>;
  /** A REST hook of organization A, on a form of its own that gets no submissions, made once. */
  restHook(): Promise<{ formId: string; hookId: string }>;
  /** Another hook on that form, made for one call (one that deletes it). */
  newRestHook(): Promise<{ formId: string; hookId: string }>;
}
interface Case {
  params?: (fx: Fixture) => Promise<Record<string, string>> | Record<string, string>;
  /** The request body, or a function making a new one for each call (from the fixture). */
  body?: unknown;
  /** The query string, from the fixture. */
  query?: (fx: Fixture) => Promise<Record<string, string>> | Record<string, string>;
  /** The body or the query names a resource of organization A: another organization gets 404, as for a path's. */
  namesResource?: boolean;
  /** What must never appear in another organization's answer. */
  secret?: (fx: Fixture) => string;
  /** The success status when it is not the method's usual one (an action answered 200 to a POST). */
  success?: number;
  /** The status a member's session gets instead of success (a route for API keys only). */
  session?: number;
  /** The answer is a stream that stays open (`text/event-stream`): only its status and content type are read. */
  stream?: boolean;
}

const CASES: Record<string, Case> = {
  'GET /api/v1/api-keys': {},
  // Which key is calling: only keys have an answer; another organization's key gets its own.
  'GET /api/v1/api-keys/current': { session: 404 },
  'POST /api/v1/api-keys': { body: { name: 'matrix', scope: 'read' } },
  'DELETE /api/v1/api-keys/:keyId': { params: async (fx) => ({ keyId: await fx.newKeyId() }) },
  'GET /api/v1/forms': { secret: (fx) => fx.form.id },
  'POST /api/v1/forms': { body: { name: 'Matrix form' } },
  'GET /api/v1/forms/:formId': { params: (fx) => ({ formId: fx.form.id }) },
  'PATCH /api/v1/forms/:formId': { params: (fx) => ({ formId: fx.form.id }), body: { name: 'Renamed' } },
  'DELETE /api/v1/forms/:formId': { params: async (fx) => ({ formId: await fx.newFormId() }) },
  'GET /api/v1/forms/:formId/stats': { params: (fx) => ({ formId: fx.form.id }) },
  'GET /api/v1/forms/:formId/submissions': { params: (fx) => ({ formId: fx.form.id }) },
  'POST /api/v1/forms/:formId/submissions/bulk': {
    params: (fx) => ({ formId: fx.form.id }),
    body: { action: 'not-spam', ids: ['placeholder'] },
    success: 200,
    secret: (fx) => fx.submissionId,
  },
  'GET /api/v1/forms/:formId/submissions/export': {
    params: (fx) => ({ formId: fx.form.id }),
    secret: (fx) => fx.submissionId,
  },
  'GET /api/v1/forms/:formId/submissions/:submissionId': {
    params: (fx) => ({ formId: fx.form.id, submissionId: fx.submissionId }),
  },
  'PATCH /api/v1/forms/:formId/submissions/:submissionId': {
    params: (fx) => ({ formId: fx.form.id, submissionId: fx.submissionId }),
    body: { spam: false },
  },
  'DELETE /api/v1/forms/:formId/submissions/:submissionId': {
    params: async (fx) => ({ formId: fx.form.id, submissionId: await fx.newSubmissionId() }),
  },
  'GET /api/v1/forms/:formId/submissions/:submissionId/files/:fileId/link': {
    params: (fx) => ({ formId: fx.form.id, submissionId: fx.submissionId, fileId: fx.fileId }),
    secret: (fx) => fx.fileId,
  },
  'GET /api/v1/forms/:formId/submissions/:submissionId/deliveries': {
    params: (fx) => ({ formId: fx.form.id, submissionId: fx.submissionId }),
  },
  'POST /api/v1/forms/:formId/submissions/:submissionId/deliveries/:deliveryId/resend': {
    params: (fx) => fx.delivery(),
    body: {},
    success: 202,
    secret: () => 'visitor-',
  },
  'POST /api/v1/forms/:formId/deliveries/replay': {
    params: (fx) => ({ formId: fx.form.id }),
    body: { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
    success: 202,
  },
  'GET /api/v1/notification-emails': { secret: () => 'notify@owner-a.example' },
  'POST /api/v1/notification-emails': {
    body: () => ({ email: `matrix-${Math.random().toString(36).slice(2)}@example.com` }),
  },
  'DELETE /api/v1/notification-emails/:emailId': {
    params: async (fx) => ({ emailId: await fx.newNotificationEmailId() }),
  },
  'GET /api/v1/forms/:formId/webhooks': {
    params: async (fx) => ({ formId: (await fx.webhook()).formId }),
    secret: () => 'hooks.example/matrix',
  },
  'POST /api/v1/forms/:formId/webhooks': {
    params: async (fx) => ({ formId: (await fx.webhook()).formId }),
    body: { url: 'https://hooks.example/matrix-new' },
  },
  'PATCH /api/v1/forms/:formId/webhooks/:webhookId': { params: (fx) => fx.webhook(), body: { enabled: true } },
  'DELETE /api/v1/forms/:formId/webhooks/:webhookId': { params: (fx) => fx.newWebhook() },
  'POST /api/v1/forms/:formId/webhooks/:webhookId/rotate-secret': {
    params: (fx) => fx.webhook(),
    body: {},
    success: 200,
    secret: () => 'whsec_',
  },
  'GET /api/v1/billing/usage': {},
  'GET /api/v1/billing/email-quota': {},
  'GET /api/v1/orgs/settings': { secret: () => 'team@owner-a.example' },
  'PATCH /api/v1/orgs/settings': { body: { email_management: true } },
  'GET /api/v1/orgs/audit-log': {},
  'GET /api/v1/orgs/audit-log/chain': {},
  'GET /api/v1/flags/:flag': { params: () => ({ flag: 'emailManagement' }) },
  'POST /api/v1/erasures': { body: () => ({ email: `nobody-${Math.random().toString(36).slice(2)}@example.com` }) },
  'GET /api/v1/erasures': {},
  'POST /api/v1/subject-access': {
    body: () => ({ email: `nobody-${Math.random().toString(36).slice(2)}@example.com` }),
    success: 200,
  },
  'GET /api/v1/erasures/:erasureId': { params: (fx) => fx.erasure(), secret: () => 'erasure-receipt/1' },
  'GET /api/v1/retention': {},
  'PATCH /api/v1/retention': { body: { days: 90 } },
  'GET /api/v1/forms/:formId/retention': { params: (fx) => ({ formId: fx.form.id }) },
  'GET /api/v1/events': { stream: true },
  'GET /api/v1/hooks/sample': {
    query: (fx) => ({ formId: fx.form.id }),
    namesResource: true,
    secret: (fx) => fx.submissionId,
  },
  'POST /api/v1/hooks': {
    body: async (fx: Fixture) => ({
      targetUrl: 'https://hooks.example/matrix-rest-new',
      event: 'submission.created',
      formId: (await fx.restHook()).formId,
    }),
    namesResource: true,
    secret: () => 'whsec_',
  },
  'DELETE /api/v1/hooks/:hookId': { params: (fx) => fx.newRestHook() },
};

type Caller = 'owner' | 'admin' | 'member' | 'other-org-owner' | 'no-session' | 'other-org-key' | 'read-key';
const CALLERS: Caller[] = ['owner', 'admin', 'member', 'other-org-owner', 'no-session', 'other-org-key', 'read-key'];
const SUCCESS: Record<string, number> = { GET: 200, POST: 201, PATCH: 200, DELETE: 204 };

const idOf = (r: ApiRoute) => `${r.method} ${r.path}`;
const scopedRoutes = API_ROUTE_LIST.filter((r) => r.auth === 'org');
const hasResourceParam = (r: ApiRoute) =>
  /:(formId|submissionId|keyId|fileId|emailId|webhookId|erasureId|hookId)/.test(r.path) ||
  CASES[idOf(r)]?.namesResource === true;

/** The status the route table says this caller must get, and the message when it is a permission denial. */
function expected(route: ApiRoute, caller: Caller): { status: number; message?: string } {
  const ok = { status: CASES[idOf(route)]?.success ?? (SUCCESS[route.method] as number) };
  const session = CASES[idOf(route)]?.session;
  const roleCheck = (roles: string[]) => {
    const verdict = route.permission ? authorize(roles, route.permission) : { success: true };
    if (!verdict.success) return { status: 403, message: verdict.error };
    return session !== undefined && caller !== 'read-key' ? { status: session } : ok;
  };
  switch (caller) {
    case 'no-session':
      return { status: 401 };
    case 'owner':
      return roleCheck(['owner']);
    case 'admin':
      return roleCheck(['admin']);
    case 'member':
      return roleCheck(['member']);
    case 'other-org-owner':
      if (session !== undefined) return { status: session };
      return hasResourceParam(route) ? { status: 404 } : ok;
    case 'other-org-key':
      if (!route.apiKey) return { status: 403 };
      return hasResourceParam(route) ? { status: 404 } : ok;
    case 'read-key':
      if (route.apiKey !== 'read') return { status: 403 };
      return roleCheck(['member']);
  }
}

export function describeTenantIsolation(target: TargetRef) {
  describe('tenant isolation, generated from the route table', () => {
    let fixture: Fixture;
    const sessions = {} as Record<'owner' | 'admin' | 'member' | 'other-org-owner', BrowserSession>;
    const keys = {} as Record<'other-org-key' | 'read-key', string>;

    beforeAll(async () => {
      const { accounts } = target();
      sessions.owner = await accounts.signUp();
      const orgA = await accounts.createOrg(sessions.owner, 'Org A');
      sessions.admin = await accounts.addMember(sessions.owner, orgA, 'admin');
      sessions.member = await accounts.addMember(sessions.owner, orgA, 'member');
      sessions['other-org-owner'] = await accounts.signUp();
      await accounts.createOrg(sessions['other-org-owner'], 'Org B');
      keys['other-org-key'] = await accounts.createApiKey(sessions['other-org-owner'], 'write');
      keys['read-key'] = await accounts.createApiKey(sessions.owner, 'read');

      const form = (await sessions.owner.call('POST', '/api/v1/forms', { name: 'Contact' })).body;
      await target().waitForForm(form.key);
      const upload = new FormData();
      upload.append('a', '1');
      upload.append('cv', new Blob(['%PDF-1.4'], { type: 'application/pdf' }), 'cv.pdf');
      await fetch(`${target().baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { accept: 'application/json' },
        body: upload,
      });
      const [submissionId, fileId] = await eventually(async () => {
        const list = await sessions.owner.call('GET', `/api/v1/forms/${form.id}/submissions`);
        expect(list.body.data).toHaveLength(1);
        // Where files are scanned, its link is refused until the scan is done (`null`: not scanned).
        expect(list.body.data[0].files[0].scan?.status ?? 'clean').toBe('clean');
        return [list.body.data[0].id as string, list.body.data[0].files[0].blobKey as string];
      }, target().patienceMs);
      await sessions.owner.call('PATCH', '/api/v1/orgs/settings', {
        submission_notification_email: 'team@owner-a.example',
      });
      const addNotificationEmail = async (email: string) => {
        const reply = await sessions.owner.call('POST', '/api/v1/notification-emails', { email });
        if (reply.status !== 201) throw new Error(`notification email: ${reply.status} ${JSON.stringify(reply.body)}`);
        return reply.body.id as string;
      };
      await addNotificationEmail('notify@owner-a.example');
      const submitAndWait = async () => {
        const reply = await fetch(`${target().baseUrl}/f/${form.key}`, {
          method: 'POST',
          headers: { accept: 'application/json' },
          body: new URLSearchParams({ b: '2' }),
        });
        const { id } = (await reply.json()) as { id: string };
        await eventually(async () => {
          expect((await sessions.owner.call('GET', `/api/v1/forms/${form.id}/submissions/${id}`)).status).toBe(200);
        }, target().patienceMs);
        return id;
      };
      // Notification addresses need verification; an autoresponse goes to the submitter and needs none.
      let delivery: Promise<{ formId: string; submissionId: string; deliveryId: string }> | undefined;
      const makeDelivery = async () => {
        const { id: formId, key } = (
          await sessions.owner.call('POST', '/api/v1/forms', {
            name: 'Autoresponder',
            settings: { notifications: { autoresponse: { enabled: true, text: 'Thanks' } } },
          })
        ).body;
        await target().waitForForm(key);
        // The notifications service learns of the form from `forms.form`: submit again until it has.
        for (let attempt = 0; ; attempt++) {
          const reply = await fetch(`${target().baseUrl}/f/${key}`, {
            method: 'POST',
            headers: { accept: 'application/json' },
            body: new URLSearchParams({ email: `visitor-${attempt}@example.com` }),
          });
          const { id: submissionId } = (await reply.json()) as { id: string };
          try {
            return await eventually(async () => {
              const path = `/api/v1/forms/${formId}/submissions/${submissionId}/deliveries`;
              const [first] = (await sessions.owner.call('GET', path)).body.data;
              expect(first).toBeDefined();
              return { formId, submissionId, deliveryId: first.id as string };
            }, 3_000);
          } catch (err) {
            if (attempt >= 10) throw err;
          }
        }
      };
      // The notifications service learns of the form from `forms.form`: the first creation may be early.
      let hookForm: Promise<string> | undefined;
      const newWebhook = async () => {
        hookForm ??= sessions.owner.call('POST', '/api/v1/forms', { name: 'Hooked' }).then((r) => r.body.id as string);
        const formId = await hookForm;
        const webhookId = await eventually(async () => {
          const reply = await sessions.owner.call('POST', `/api/v1/forms/${formId}/webhooks`, {
            url: 'https://hooks.example/matrix',
          });
          expect(reply.status).toBe(201);
          return reply.body.id as string;
        }, target().patienceMs);
        return { formId, webhookId };
      };
      let webhook: ReturnType<typeof newWebhook> | undefined;
      // Hooks on a form of their own: the webhooks' form fills up with the endpoints the matrix leaves behind.
      let restHookForm: Promise<string> | undefined;
      const newRestHook = async () => {
        restHookForm ??= sessions.owner
          .call('POST', '/api/v1/forms', { name: 'Zapped' })
          .then((r) => r.body.id as string);
        const formId = await restHookForm;
        const hookId = await eventually(async () => {
          const reply = await sessions.owner.call('POST', '/api/v1/hooks', {
            targetUrl: 'https://hooks.example/matrix-rest',
            event: 'submission.created',
            formId,
          });
          expect(reply.status).toBe(201);
          return reply.body.id as string;
        }, target().patienceMs);
        return { formId, hookId };
      };
      let restHook: ReturnType<typeof newRestHook> | undefined;
      let erasure: Promise<{ erasureId: string }> | undefined;
      fixture = {
        erasure: () => {
          erasure ??= sessions.owner
            .call('POST', '/api/v1/erasures', { email: 'nobody@owner-a.example' })
            .then((r) => ({ erasureId: r.body.receipt.id as string }));
          return erasure;
        },
        webhook: () => {
          webhook ??= newWebhook();
          return webhook;
        },
        newWebhook,
        restHook: () => {
          restHook ??= newRestHook();
          return restHook;
        },
        newRestHook,
        delivery: () => {
          delivery ??= makeDelivery();
          return delivery;
        },
        form,
        submissionId,
        newFormId: async () => (await sessions.owner.call('POST', '/api/v1/forms', { name: 'Doomed' })).body.id,
        newSubmissionId: submitAndWait,
        fileId,
        newNotificationEmailId: () => addNotificationEmail(`doomed-${Math.random().toString(36).slice(2)}@example.com`),
        newKeyId: async () =>
          (await sessions.owner.call('POST', '/api/v1/api-keys', { name: 'doomed', scope: 'read' })).body.id,
      };
    }, 120_000);

    /** Opens a stream as `caller`: a success is read up to its content type, then closed; a refusal whole. */
    async function openStreamAs(caller: Caller, path: string) {
      const headers: Record<string, string> = { accept: 'text/event-stream', origin: target().baseUrl };
      const session = sessions[caller as keyof typeof sessions];
      if (session) headers.cookie = [...session.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      if (caller in keys) headers['x-api-key'] = keys[caller as keyof typeof keys];
      const abort = new AbortController();
      const res = await fetch(`${target().baseUrl}${path}`, { headers, signal: abort.signal });
      const type = res.headers.get('content-type') ?? '';
      if (type.startsWith('text/event-stream')) abort.abort();
      return { status: res.status, body: type.startsWith('application/json') ? await res.json() : type };
    }

    async function callAs(caller: Caller, method: string, path: string, body?: unknown, stream = false) {
      if (stream) return openStreamAs(caller, path);
      if (caller in sessions) return sessions[caller as keyof typeof sessions].call(method, path, body);
      const headers: Record<string, string> = { accept: 'application/json' };
      if (caller in keys) headers['x-api-key'] = keys[caller as keyof typeof keys];
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${target().baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      const json = res.headers.get('content-type')?.startsWith('application/json');
      return { status: res.status, body: json && text ? JSON.parse(text) : text || null };
    }

    it('has a case for every organization-scoped route', () => {
      expect(scopedRoutes.map(idOf).filter((id) => !(id in CASES))).toEqual([]);
    });

    for (const route of scopedRoutes) {
      for (const caller of CALLERS) {
        const want = expected(route, caller);
        it(`${idOf(route)} as ${caller} → ${want.status}`, async () => {
          const spec = CASES[idOf(route)] as Case;
          const params = spec.params ? await spec.params(fixture) : {};
          const query = spec.query ? `?${new URLSearchParams(await spec.query(fixture))}` : '';
          const path =
            route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] as string)) + query;
          const body = typeof spec.body === 'function' ? await spec.body(fixture) : spec.body;
          const reply = await callAs(caller, route.method, path, body, spec.stream);
          expect(reply.status, JSON.stringify(reply.body)).toBe(want.status);
          if (want.message) expect(reply.body.error.message).toBe(want.message);
          if (want.status >= 400) expect(reply.body.error.code).toEqual(expect.any(String));
          if (caller.startsWith('other-org') && spec.secret)
            expect(JSON.stringify(reply.body)).not.toContain(spec.secret(fixture));
        });
      }
    }
  });
}
