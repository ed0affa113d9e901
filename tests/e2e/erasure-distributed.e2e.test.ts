import { randomUUID } from 'node:crypto';
import type { SignedErasureReceipt } from '@formgate/contracts';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type WebhookReceiver } from '../../services/notifications/test/webhook-receiver.ts';
import { eventually } from '../harness/embedded-app.ts';
import { startDistributed } from '../harness/processes.ts';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS;
const MONGO_URL = process.env.MONGO_URL;
if (!KAFKA_BROKERS || !MONGO_URL) {
  throw new Error('KAFKA_BROKERS and MONGO_URL must be set (the e2e global setup provides them)');
}

/** What a value reads as for a byte scan: binary (GridFS chunks) as its bytes in latin1, the rest as text. */
function asText(value: unknown): string {
  if (value instanceof mongoose.mongo.Binary) return Buffer.from(value.buffer).toString('latin1');
  if (Array.isArray(value)) return value.map(asText).join(' ');
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.entries(value)
      .map(([k, v]) => `${k} ${asText(v)}`)
      .join(' ');
  }
  return String(value);
}

/**
 * Issue 31 in distributed mode: a submission with the address in a field and a file, mailed (autoresponse) and
 * webhooked, erased through the gateway; then no document of the deployment's MongoDB databases — forms, files
 * (GridFS), notifications and the rest — holds the address, the message or the file, and the endpoint that got the
 * original gets `submission.erased`. Kafka keeps its records until their retention (docs/privacy.md): not scanned.
 */
describe('distributed mode: erasure, retention and no-store forms reach every database', () => {
  let cluster: Awaited<ReturnType<typeof startDistributed>>;
  let receiver: WebhookReceiver;
  let client: mongoose.mongo.MongoClient;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${cluster.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': await cluster.apiKey('default'),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** The deployment's databases holding `needle`, as `db.collection` names. */
  const holding = async (needle: string) => {
    const found: string[] = [];
    const { databases } = await client.db().admin().listDatabases();
    for (const { name } of databases.filter((d) => d.name.startsWith(`${cluster.mongoDbPrefix}_`))) {
      for (const { name: collection } of await client.db(name).listCollections().toArray()) {
        const docs = await client.db(name).collection(collection).find({}).toArray();
        if (docs.some((d) => asText(d).toLowerCase().includes(needle.toLowerCase())))
          found.push(`${name}.${collection}`);
      }
    }
    return found;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.handler = (_request, response) => response.writeHead(204).end();
    cluster = await startDistributed({
      kafkaBrokers: KAFKA_BROKERS,
      mongoUrl: MONGO_URL,
      notificationsEnv: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' },
    });
    client = await mongoose.mongo.MongoClient.connect(MONGO_URL);
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
    await receiver?.close();
    const dbs = await client?.db().admin().listDatabases();
    for (const { name } of dbs?.databases ?? []) {
      if (name.startsWith(`${cluster.mongoDbPrefix}_`)) await client.db(name).dropDatabase();
    }
    await client?.close();
  });

  it('erases the submission, its file, its copy and its deliveries; the endpoint hears of it', async () => {
    const address = `Quuxdist${randomUUID().slice(0, 6)}@Example.com`;
    const message = `xylophonedist${randomUUID().slice(0, 6)}`;
    const fileMarker = `xylophonefile${randomUUID().slice(0, 6)}`;
    const created = await api('POST', '/api/v1/forms', {
      name: 'Applications',
      settings: { notifications: { autoresponse: { enabled: true, text: 'Thanks!' } } },
    });
    expect(created.status).toBe(201);
    const form = created.body as { id: string; key: string };
    const path = `/hook-${randomUUID()}`;
    await eventually(async () => {
      const hook = await api('POST', `/api/v1/forms/${form.id}/webhooks`, { url: `${receiver.url}${path}` });
      expect(hook.status).toBe(201);
    }, 30_000);

    const idempotencyKey = randomUUID();
    let submissionId = '';
    await eventually(async () => {
      const upload = new FormData();
      upload.append('email', address);
      upload.append('message', `Hello ${message}`);
      upload.append('cv', new Blob([`%PDF-1.4 ${fileMarker}`], { type: 'application/pdf' }), 'cv.pdf');
      const res = await fetch(`${cluster.baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { accept: 'application/json', 'idempotency-key': idempotencyKey },
        body: upload,
      });
      expect(res.status).toBeLessThan(300);
      submissionId = ((await res.json()) as { id: string }).id;
    }, 30_000);
    await cluster.smtp.waitFor((m) => m.to.includes(address.toLowerCase()), 60_000);
    await eventually(() => expect(receiver.requests.filter((r) => r.url === path)).toHaveLength(1), 60_000);
    await eventually(async () => {
      for (const needle of [address, message, fileMarker]) expect(await holding(needle), needle).not.toEqual([]);
    }, 30_000);

    const erased = await api('POST', '/api/v1/erasures', { email: address.toLowerCase() });
    expect(erased.status, JSON.stringify(erased.body)).toBe(201);
    const signed = erased.body as unknown as SignedErasureReceipt;
    expect(signed.receipt.submissions.map((s) => s.id)).toEqual([submissionId]);

    // The copies go as the consumers handle the erasure (distributed mode does not wait for them).
    await eventually(async () => {
      for (const needle of [address, message, fileMarker]) expect(await holding(needle), needle).toEqual([]);
    }, 60_000);
    await eventually(() => {
      const erasedHooks = receiver.requests.filter(
        (r) => r.url === path && JSON.parse(r.body).type === 'submission.erased',
      );
      expect(erasedHooks).toHaveLength(1);
      expect(erasedHooks[0]?.body.toLowerCase()).not.toContain(address.toLowerCase());
    }, 60_000);
  });

  /** Creates a form with a webhook to `receiver`; submits `message` and a file naming `marker`; answers both ids. */
  const submitted = async (settings: Record<string, unknown>, message: string, marker: string) => {
    const created = await api('POST', '/api/v1/forms', { name: 'Lifecycle', settings });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const form = created.body as { id: string; key: string };
    const path = `/hook-${randomUUID()}`;
    await eventually(async () => {
      const hook = await api('POST', `/api/v1/forms/${form.id}/webhooks`, { url: `${receiver.url}${path}` });
      expect(hook.status).toBe(201);
    }, 30_000);
    const idempotencyKey = randomUUID();
    let submissionId = '';
    await eventually(async () => {
      const upload = new FormData();
      upload.append('message', `Hello ${message}`);
      upload.append('cv', new Blob([`%PDF-1.4 ${marker}`], { type: 'application/pdf' }), 'cv.pdf');
      const res = await fetch(`${cluster.baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { accept: 'application/json', 'idempotency-key': idempotencyKey },
        body: upload,
      });
      expect(res.status).toBeLessThan(300);
      submissionId = ((await res.json()) as { id: string }).id;
    }, 30_000);
    await eventually(() => expect(receiver.requests.filter((r) => r.url === path)).toHaveLength(1), 60_000);
    return { form, submissionId };
  };

  it('the retention sweep deletes an expired submission from every database', async () => {
    const message = `retentiondist${randomUUID().slice(0, 6)}`;
    const marker = `retentionfile${randomUUID().slice(0, 6)}`;
    const { form, submissionId } = await submitted({ retentionDays: 30 }, message, marker);
    await eventually(async () => {
      for (const needle of [message, marker]) expect(await holding(needle), needle).not.toEqual([]);
    }, 30_000);
    // Aged past the form's 30 days where the sweep reads it; a change of the default runs the sweep at once.
    const aged = new Date(Date.now() - 45 * 86_400_000).toISOString();
    const { matchedCount } = await client
      .db(`${cluster.mongoDbPrefix}_forms`)
      .collection('form_submissions')
      .updateOne({ _id: submissionId as never }, { $set: { createdAt: aged } });
    expect(matchedCount).toBe(1);
    expect((await api('PATCH', '/api/v1/retention', { days: 90 })).status).toBe(200);
    await eventually(async () => {
      expect((await api('GET', `/api/v1/forms/${form.id}/submissions/${submissionId}`)).status).toBe(404);
      for (const needle of [message, marker]) expect(await holding(needle), needle).toEqual([]);
    }, 60_000);
  });

  it('a no-store form keeps only metadata once its deliveries are done', async () => {
    const message = `nostoredist${randomUUID().slice(0, 6)}`;
    const marker = `nostorefile${randomUUID().slice(0, 6)}`;
    const { form, submissionId } = await submitted({ storeContent: false }, message, marker);
    // Settled by the last delivery's outcome; forms drops the content once it stored the submission too (on a loaded
    // machine its consumer may lag notifications': the drop is retried until then). The settle sweep, a minute after
    // the planning, is the safety net for a settling that failed.
    await eventually(async () => {
      const got = await api('GET', `/api/v1/forms/${form.id}/submissions/${submissionId}`);
      expect(got.body).toMatchObject({ id: submissionId, contentDropped: true, fields: [], files: [] });
      for (const needle of [message, marker]) expect(await holding(needle), needle).toEqual([]);
    }, 150_000);
    const exported = await api('GET', `/api/v1/forms/${form.id}/submissions/export`);
    expect(exported.status).toBe(409);
  }, 240_000);
});
