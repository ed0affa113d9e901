import type { IncomingHttpHeaders } from 'node:http';
import type { WebhookEndpointDto } from '@formgate/contracts';
import { type SmtpTestServer, startSmtpTestServer } from '@formgate/mail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';
import { type OtlpReceiver, spansByName, startOtlpReceiver } from '../harness/otlp-receiver.ts';

/** Hostile content: none of it may reach a span (names, attributes, events, links). */
const MARKER = 'zq-trace-marker-7c1f';
const HOSTILE = { message: `<script>${MARKER}</script>`, email: `${MARKER}@example.com` };
/** The notification address: no span may carry it either. */
const RECIPIENT = 'traced-inbox-4d2a@example.com';

/**
 * Issue 15: embedded Formgate with `OTEL_EXPORTER_OTLP_ENDPOINT` set exports one trace per submission — the gateway,
 * ingest, its append to the log, the forms consumer, the webhook POST and the notification's `smtp send` (to a real
 * SMTP server) — to an in-test OTLP/HTTP receiver.
 */
describe('embedded mode: OpenTelemetry traces over OTLP/HTTP', () => {
  let app: TestApp;
  let otlp: OtlpReceiver;
  let smtp: SmtpTestServer;
  const hooks: IncomingHttpHeaders[] = [];
  beforeAll(async () => {
    otlp = await startOtlpReceiver((_req, headers) => hooks.push(headers));
    smtp = await startSmtpTestServer();
    const mailLink = async (to: string, subject: RegExp) => {
      const mail = await smtp.waitFor((m) => m.to.includes(to) && subject.test(m.subject), 15_000);
      const link = mail.text.match(/https?:\/\/[^\s<>"]+/)?.[0];
      if (!link) throw new Error(`no link in "${mail.subject}"`);
      return link;
    };
    const tracing = {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
    };
    app = await startTestApp({ ...tracing, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', SMTP_URL: smtp.url }, {}, mailLink);
    // Double opt-in of the notification address, as an owner does it.
    expect((await app.api('POST', '/api/v1/notification-emails', { email: RECIPIENT })).status).toBe(201);
    const confirm = (await mailLink(RECIPIENT, /^Confirm /)).replace('//localhost:', '//127.0.0.1:');
    expect((await fetch(confirm, { redirect: 'manual' })).status).toBe(303);
  });
  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
    await otlp?.stop();
  });

  it('one trace spans gateway → ingest → the log → the forms consumer → the webhook, without the contents', async () => {
    const form = await app.createForm({ name: 'Traced' });
    const hook = await eventually(async () => {
      const res = await app.api('POST', `/api/v1/forms/${form.id}/webhooks`, {
        url: `${otlp.url}/hook`,
        events: ['submission.created'],
      });
      expect(res.status).toBe(201);
      return res.body as unknown as WebhookEndpointDto;
    });
    expect(hook.url).toContain('/hook');
    const res = await fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      // A client's trace context is not continued at the public edge: the trace starts at the gateway.
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
      body: JSON.stringify(HOSTILE),
    });
    expect(res.status).toBe(200);

    const trace = await eventually(() => {
      // The harness probes ingest with an empty POST until it knows the form (415): the 200 is the submission.
      const [edge] = otlp
        .spans()
        .filter((s) => s.name === 'POST /f/*' && s.attributes['http.response.status_code'] === 200);
      expect(edge).toBeDefined();
      const inTrace = otlp.spans().filter((s) => s.traceId === edge?.traceId);
      const names = inTrace.map((s) => s.name);
      expect(names).toEqual(expect.arrayContaining(['POST /f/:key', 'send ingest.submission', 'webhook POST']));
      expect(inTrace.filter((s) => s.name === 'process ingest.submission').length).toBeGreaterThanOrEqual(3);
      // A consumer span ends (and is exported) after the webhook POST it made: wait for the webhook's parent too.
      const hook = inTrace.find((s) => s.name === 'webhook POST');
      expect(inTrace.some((s) => s.spanId === hook?.parentSpanId)).toBe(true);
      return inTrace;
    }, 15_000);
    const one = (name: string) => spansByName(trace, name)[0] as NonNullable<ReturnType<typeof spansByName>[0]>;
    const gateway = one('POST /f/*');
    const ingest = one('POST /f/:key');
    const send = one('send ingest.submission');
    expect(gateway.traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    expect(gateway.parentSpanId ?? '').toBe('');
    expect(gateway.kind).toBe(2); // SERVER
    expect(gateway.resource['service.name']).toBe('formgate');
    expect(gateway.resource['deployment.environment.name']).toBe('test');
    expect(gateway.attributes['http.response.status_code']).toBe(200);
    expect(ingest.parentSpanId).toBe(gateway.spanId);
    expect(send.parentSpanId).toBe(ingest.spanId);
    expect(send.kind).toBe(4); // PRODUCER
    const consumers = spansByName(trace, 'process ingest.submission');
    const forms = consumers.find((s) => s.attributes['messaging.consumer.group.name'] === 'forms.submission-received');
    expect(forms?.parentSpanId).toBe(send.spanId);
    expect(forms?.kind).toBe(5); // CONSUMER
    expect(forms?.links.map((l) => l.spanId)).toContain(send.spanId);
    const webhook = one('webhook POST');
    expect(webhook.kind).toBe(3); // CLIENT
    expect(webhook.attributes).toMatchObject({ 'formgate.form.id': form.id, 'formgate.delivery.outcome': '200' });
    // The webhook went out within the trace (its parent is a consumer span of this trace), without our context.
    expect(trace.some((s) => s.spanId === webhook.parentSpanId && s.kind === 5)).toBe(true);
    await eventually(() => expect(hooks).toHaveLength(1));
    expect(hooks[0]?.traceparent).toBeUndefined();

    // Nothing of the submission in any span of the run, and no URL with the key either.
    const everything = JSON.stringify(otlp.raw());
    expect(everything).not.toContain(MARKER);
    expect(everything).not.toContain(form.key);
    expect(everything).not.toContain('/hook');
  });

  it('a notification email is an `smtp send` CLIENT span under the notifications consumer, without address or mail', async () => {
    const form = await app.createForm({ name: 'Mailed', settings: { notifications: { emails: [RECIPIENT] } } });
    const res = await fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(HOSTILE),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    const mail = await smtp.waitFor((m) => m.to.includes(RECIPIENT) && m.text.includes(id), 15_000);

    const { smtpSend, trace } = await eventually(() => {
      const [smtpSend, ...others] = otlp.spans().filter((s) => s.name === 'smtp send');
      expect(others).toEqual([]);
      const trace = otlp.spans().filter((s) => s.traceId === smtpSend?.traceId);
      // The consumer span that sent it ends (and is exported) after the send.
      expect(trace.some((s) => s.spanId === smtpSend?.parentSpanId)).toBe(true);
      // Within the submission's trace, which started at the gateway's edge: its span is the main thread's, exported
      // by that thread's own batch, independently of the services thread's.
      expect(trace.some((s) => s.name === 'POST /f/*' && (s.parentSpanId ?? '') === '')).toBe(true);
      return { smtpSend: smtpSend as NonNullable<typeof smtpSend>, trace };
    }, 15_000);
    expect(smtpSend.kind).toBe(3); // CLIENT
    expect(smtpSend.attributes).toEqual({
      'formgate.delivery.channel': 'email',
      'formgate.delivery.purpose': 'notification',
      'formgate.delivery.attempt': 1,
      'formgate.form.id': form.id,
      'formgate.org.id': expect.any(String),
      'formgate.delivery.outcome': '250',
    });
    const parent = trace.find((s) => s.spanId === smtpSend.parentSpanId);
    expect(parent?.kind).toBe(5); // CONSUMER
    expect(parent?.attributes['messaging.consumer.group.name']).toBe('notifications.deliveries');

    const span = JSON.stringify(smtpSend);
    for (const secret of [RECIPIENT, mail.from, mail.subject, mail.headers['message-id'] ?? 'no id', MARKER]) {
      expect(span).not.toContain(secret);
    }
    expect(JSON.stringify(otlp.raw())).not.toContain(RECIPIENT);
  });
});
