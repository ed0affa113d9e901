import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { HeadObjectCommand, PutBucketCorsCommand, S3Client } from '@aws-sdk/client-s3';
import {
  type AuditChainPageDto,
  createAuditChainVerifier,
  type SubmissionDto,
  type UploadsGrant,
} from '@formgate/contracts';
import { createIdentityCodec, IDENTITY_HEADER } from '@formgate/kit';
import { parsePrometheusText, samplesOf, sumOf } from '@formgate/kit/testing';
import { dedicatedFerretDb } from '@formgate/kit/testing/backends';
import { createClient } from '@formspree/core';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveClientPage } from '../browser/client-page.ts';
import {
  PDF_HEAD,
  recordRequests,
  SCAN_BYTES,
  UPLOAD_PAGE_SOURCE,
  writeRandomFile,
} from '../browser/direct-upload-page.ts';
import { describeBrowserJourney } from '../browser/journey.ts';
import { describeAccountFlows } from '../flows/account.flows.ts';
import { describeApiKeyFlows } from '../flows/api-key.flows.ts';
import { describeOrganizationFlows } from '../flows/organization.flows.ts';
import { describeReadYourSettingsFlows } from '../flows/read-your-settings.flows.ts';
import { describeSsoFlows } from '../flows/sso.flows.ts';
import { describeSubmissionManagementFlows } from '../flows/submission-management.flows.ts';
import type { FlowTarget } from '../flows/target.ts';
import { distributedTarget } from '../flows/targets.ts';
import { describeTenantIsolation } from '../flows/tenant-isolation.flows.ts';
import { describeTwoFactorFlows } from '../flows/two-factor.flows.ts';
import { createAccounts } from '../harness/accounts.ts';
import { createBrowserSession } from '../harness/browser-session.ts';
import { launchChromium } from '../harness/chromium.ts';
import { EICAR, EICAR_SIGNATURE, startClamd, type TestClamd } from '../harness/clamd.ts';
import { eventually } from '../harness/embedded-app.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../harness/otlp-receiver.ts';
import { startDistributed, stopProcess } from '../harness/processes.ts';
import { buildWeb } from '../harness/web-build.ts';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS;
const MONGO_URL = process.env.MONGO_URL;
if (!KAFKA_BROKERS || !MONGO_URL) {
  throw new Error('KAFKA_BROKERS and MONGO_URL must be set (the e2e global setup provides them)');
}
/** The FerretDB this file stops and starts: its own, next to the shared one of this worktree's runs. */
const OUTAGE_FERRETDB_PORT = Number(process.env.TEST_FERRETDB_PORT ?? 29217) + 10;

type Cluster = Awaited<ReturnType<typeof startDistributed>>;

/** A client of the deployment's bucket (`cluster.fileStoreEnv`), to look at its objects directly. */
const bucketClient = (env: Record<string, string>) =>
  new S3Client({
    region: 'us-east-1',
    endpoint: env.S3_ENDPOINT as string,
    forcePathStyle: true,
    credentials: { accessKeyId: env.S3_ACCESS_KEY_ID as string, secretAccessKey: env.S3_SECRET_ACCESS_KEY as string },
  });

describe('distributed mode: separate processes on Kafka and a Mongo-wire server', () => {
  let cluster: Cluster;
  const api = async (method: string, path: string, body?: unknown, org = 'default') => {
    const res = await fetch(`${cluster.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': await cluster.apiKey(org),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const createForm = async (name: string, org = 'default') => {
    const res = await api('POST', '/api/v1/forms', { name }, org);
    expect(res.status).toBe(201);
    const form = res.body as { id: string; key: string };
    // Both ingest instances must have the form in their view before the test posts to it.
    await eventually(async () => {
      for (const url of [cluster.processes['ingest-1']?.url, cluster.processes['ingest-2']?.url]) {
        const r = await fetch(`${url}/f/${form.key}`, { method: 'POST', headers: { accept: 'application/json' } });
        expect(r.status).not.toBe(404);
      }
    }, 30_000);
    return form;
  };
  const allSubmissionIds = async (formId: string, org = 'default') => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const qs: string = cursor ? `&cursor=${cursor}` : '';
      const page = await api('GET', `/api/v1/forms/${formId}/submissions?limit=100${qs}`, undefined, org);
      const body = page.body as { data: { id: string }[]; nextCursor: string | null };
      ids.push(...body.data.map((s) => s.id));
      cursor = body.nextCursor;
    } while (cursor);
    return ids;
  };
  /** The submission once the malware scan has judged every file of it (scanning is on in this deployment). */
  const scanned = (formId: string, id: string) =>
    eventually(async () => {
      const got = await api('GET', `/api/v1/forms/${formId}/submissions/${id}`);
      expect(got.status).toBe(200);
      const submission = got.body as unknown as SubmissionDto;
      expect(submission.files.map((f) => f.scan?.status)).not.toContain('pending');
      return submission;
    }, 60_000);
  /** The parsed `/metrics` of each named process (each must answer, in the text format). */
  const scrapeAll = (names: string[]) =>
    Promise.all(
      names.map(async (name) => {
        const res = await fetch(cluster.processes[name]?.metricsUrl ?? 'http://metrics.invalid');
        expect([name, res.status]).toEqual([name, 200]);
        return parsePrometheusText(await res.text());
      }),
    );
  const submit = (key: string, body: Record<string, string>, idempotencyKey: string) =>
    fetch(`${cluster.baseUrl}/f/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify(body),
    });

  let webDir: string;
  // Every process exports its spans here (issue 15, ADR 51): one trace must cross gateway, ingest and forms.
  let otlp: OtlpReceiver;
  // clamd (Debian's), which both forms instances scan every file with (issue 33): up to the largest file there is.
  let clamd: TestClamd;
  beforeAll(async () => {
    webDir = await buildWeb();
    otlp = await startOtlpReceiver();
    clamd = await startClamd({ streamMaxBytes: 110 * 1024 * 1024 });
    cluster = await startDistributed({
      kafkaBrokers: KAFKA_BROKERS,
      mongoUrl: MONGO_URL,
      gatewayEnv: { WEB_DIR: webDir },
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '500' },
      // Uploads in an S3 bucket (issue 33); GridFS is the other tiers' (erasure-distributed scans it).
      fileStore: 's3',
      formsEnv: { CLAMAV_ADDRESS: clamd.address, CLAMAV_MAX_FILE_BYTES: String(110 * 1024 * 1024) },
    });
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
    await clamd?.close();
    await otlp?.stop();
    if (webDir) rmSync(webDir, { recursive: true, force: true });
  });

  // The dashboard served by the distributed gateway, mail over SMTP (screenshots in .../screenshots/distributed).
  describeBrowserJourney('distributed', () => ({
    url: cluster.baseUrl,
    mailLink: (email, subject) => cluster.mailLink(email, subject),
  }));

  // The same account, organization and API-key journeys the embedded suite runs, here across processes.
  let flowTarget: FlowTarget | undefined;
  const target = () => {
    flowTarget ??= distributedTarget(cluster);
    return flowTarget;
  };
  describeAccountFlows(target);
  describeOrganizationFlows(target);
  describeApiKeyFlows(target);
  describeTwoFactorFlows(target);
  describeSsoFlows(target);
  describeTenantIsolation(target);
  describeSubmissionManagementFlows(target);
  describeReadYourSettingsFlows(target);

  it('files: an upload is kept in the S3 bucket, private and encrypted, served by a signed link, and gone with its submission', async () => {
    const form = await createForm('Uploads');
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(2_000_000)]);
    const upload = new FormData();
    upload.append('name', 'Ada');
    upload.append('cv', new Blob([pdf], { type: 'application/pdf' }), 'cv.pdf');
    const posted = await fetch(`${cluster.baseUrl}/f/${form.key}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: upload,
    });
    expect(posted.ok).toBe(true);
    const submission = await eventually(async () => {
      const list = await api('GET', `/api/v1/forms/${form.id}/submissions`);
      const [first] = list.body.data as { id: string; files: { blobKey: string; size: number }[] }[];
      if (!first) throw new Error('not listed yet');
      return first;
    }, 30_000);
    const file = submission.files[0] as { blobKey: string; size: number };
    expect(file.size).toBe(pdf.length);
    expect((await scanned(form.id, submission.id)).files[0]?.scan?.status).toBe('clean');

    const env = cluster.fileStoreEnv;
    const s3 = bucketClient(env);
    try {
      const head = await s3.send(new HeadObjectCommand({ Bucket: env.S3_BUCKET, Key: file.blobKey }));
      expect(head.ServerSideEncryption).toBe('AES256');
      expect(head.ContentLength).toBe(pdf.length);
      expect((await fetch(`${env.S3_ENDPOINT}/${env.S3_BUCKET}/${file.blobKey}`)).status).toBe(403);

      const link = await api('GET', `/api/v1/forms/${form.id}/submissions/${submission.id}/files/${file.blobKey}/link`);
      expect(link.status).toBe(200);
      const downloaded = await fetch(new URL(link.body.url as string, cluster.baseUrl));
      expect(downloaded.status).toBe(200);
      expect(Buffer.from(await downloaded.arrayBuffer()).equals(pdf)).toBe(true);

      const deleted = await fetch(`${cluster.baseUrl}/api/v1/forms/${form.id}/submissions/${submission.id}`, {
        method: 'DELETE',
        headers: { 'x-api-key': await cluster.apiKey('default') },
      });
      expect(deleted.status).toBe(204);
      await eventually(async () => {
        const gone = await s3.send(new HeadObjectCommand({ Bucket: env.S3_BUCKET, Key: file.blobKey })).then(
          () => false,
          (err: { $metadata?: { httpStatusCode?: number } }) => err.$metadata?.httpStatusCode === 404,
        );
        if (!gone) throw new Error('the object is still in the bucket');
      }, 30_000);
    } finally {
      s3.destroy();
    }
  });

  it('direct uploads: files go straight to the S3 bucket by presigned URL; the submission takes them whole and typed', async () => {
    const form = await createForm('Direct uploads');
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(12 * 1024 * 1024)]);
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
    const grant = await fetch(`${cluster.baseUrl}/f/${form.key}/uploads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        files: [
          { field: 'scan', filename: 'scan.pdf', contentType: 'application/pdf', size: pdf.length },
          { field: 'photo', filename: 'photo.png', contentType: 'image/png', size: png.length },
        ],
      }),
    });
    expect(grant.status).toBe(201);
    const granted = (await grant.json()) as UploadsGrant;
    const env = cluster.fileStoreEnv;
    const [scan, photo] = granted.files as [UploadsGrant['files'][number], UploadsGrant['files'][number]];
    // Presigned by the bucket itself: length, type and encryption are signed.
    expect(scan.url.startsWith(`${env.S3_ENDPOINT}/${env.S3_BUCKET}/`)).toBe(true);
    expect(scan.headers).toMatchObject({ 'content-type': 'application/pdf', 'x-amz-server-side-encryption': 'AES256' });
    expect((await fetch(scan.url, { method: 'PUT', headers: scan.headers, body: pdf.subarray(1) })).status).toBe(403);
    expect((await fetch(scan.url, { method: 'PUT', headers: scan.headers, body: pdf })).status).toBe(200);
    // Not a PNG: the submission is refused, and accepted once the right bytes are there.
    const notPng = Buffer.alloc(png.length, 'x');
    expect((await fetch(photo.url, { method: 'PUT', headers: photo.headers, body: notPng })).status).toBe(200);
    const post = () =>
      fetch(`${cluster.baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ name: 'Ada', _uploads: granted.uploads }),
      });
    const refused = await post();
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('FILE_TYPE_MISMATCH');
    expect((await fetch(photo.url, { method: 'PUT', headers: photo.headers, body: png })).status).toBe(200);
    const accepted = await post();
    expect(accepted.status).toBe(200);
    const { id } = (await accepted.json()) as { id: string };
    const stored = await scanned(form.id, id);
    expect(stored.files.map((f) => [f.field, f.filename, f.contentType, f.size, f.scan?.status])).toEqual([
      ['scan', 'scan.pdf', 'application/pdf', pdf.length, 'clean'],
      ['photo', 'photo.png', 'image/png', png.length, 'clean'],
    ]);
    const link = await api('GET', `/api/v1/forms/${form.id}/submissions/${id}/files/${stored.files[0]?.blobKey}/link`);
    const downloaded = await fetch(new URL(link.body.url as string, cluster.baseUrl));
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(pdf)).toBe(true);
  });

  it('malware scanning: a file carrying EICAR is quarantined, flagged and never served; a clean one is', async () => {
    const form = await createForm('Scanned uploads');
    const post = (name: string, content: string) => {
      const upload = new FormData();
      upload.append('name', name);
      upload.append('cv', new Blob([content], { type: 'application/pdf' }), 'cv.pdf');
      return fetch(`${cluster.baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { accept: 'application/json' },
        body: upload,
      });
    };
    const infected: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await post(`infected ${i}`, `%PDF-1.4 ${i} ${EICAR}`);
      expect(res.status).toBe(200);
      infected.push(((await res.json()) as { id: string }).id);
    }
    const clean = ((await (await post('clean', '%PDF-1.4 a harmless CV')).json()) as { id: string }).id;
    for (const id of infected) {
      const stored = await scanned(form.id, id);
      const file = stored.files[0] as SubmissionDto['files'][number];
      expect(file.scan).toMatchObject({ status: 'infected', detail: EICAR_SIGNATURE });
      const link = await api('GET', `/api/v1/forms/${form.id}/submissions/${id}/files/${file.blobKey}/link`);
      expect(link.status).toBe(403);
      expect(JSON.stringify(link.body)).toContain('FORMS_FILE_QUARANTINED');
    }
    const ok = await scanned(form.id, clean);
    expect(ok.files[0]?.scan?.status).toBe('clean');
    const link = await api('GET', `/api/v1/forms/${form.id}/submissions/${clean}/files/${ok.files[0]?.blobKey}/link`);
    expect(link.status).toBe(200);
    expect(await (await fetch(new URL(link.body.url as string, cluster.baseUrl))).text()).toBe(
      '%PDF-1.4 a harmless CV',
    );
  });

  it('direct uploads from Chromium: a 100 MB file from a page on another origin goes straight into the bucket', async () => {
    const form = await createForm('Browser uploads');
    const site = await serveClientPage({
      pageSource: UPLOAD_PAGE_SOURCE,
      title: 'Send a scan',
      formKey: form.key,
      formgateUrl: cluster.baseUrl,
    });
    const env = cluster.fileStoreEnv;
    const s3 = bucketClient(env);
    // The bucket's CORS rule an operator gives it (docs/operations.md, "File storage").
    await s3.send(
      new PutBucketCorsCommand({
        Bucket: env.S3_BUCKET,
        CORSConfiguration: {
          CORSRules: [
            {
              AllowedOrigins: [new URL(site.url).origin],
              AllowedMethods: ['PUT'],
              AllowedHeaders: ['content-type', 'x-amz-meta-filename', 'x-amz-server-side-encryption'],
              MaxAgeSeconds: 600,
            },
          ],
        },
      }),
    );
    const dir = mkdtempSync(join(tmpdir(), 'fg-s3-upload-'));
    const scanPath = join(dir, 'scan.pdf');
    const sha256 = await writeRandomFile(scanPath, PDF_HEAD, SCAN_BYTES);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(site.url);
      const requests = recordRequests(page);
      await page.getByLabel('Name').fill('Ada Lovelace');
      await page.getByLabel('Scan').setInputFiles(scanPath);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.locator('#submission-id').waitFor({ timeout: 120_000 });
      const id = (await page.locator('#submission-id').textContent()) as string;
      // The bytes went to the bucket, not through Formgate.
      const puts = requests.filter((r) => r.method() === 'PUT');
      expect(puts.map((r) => new URL(r.url()).origin)).toEqual([new URL(env.S3_ENDPOINT as string).origin]);
      expect((await puts[0]?.response())?.status()).toBe(200);
      // Scanned whole by clamd, streamed from the bucket, before it can be downloaded.
      const stored = await scanned(form.id, id);
      expect(stored.files).toEqual([
        expect.objectContaining({
          field: 'scan',
          filename: 'scan.pdf',
          contentType: 'application/pdf',
          size: SCAN_BYTES,
          scan: expect.objectContaining({ status: 'clean' }),
        }),
      ]);
      const blobKey = stored.files[0]?.blobKey as string;
      const head = await s3.send(new HeadObjectCommand({ Bucket: env.S3_BUCKET, Key: blobKey }));
      expect(head.ServerSideEncryption).toBe('AES256');
      const link = await api('GET', `/api/v1/forms/${form.id}/submissions/${id}/files/${blobKey}/link`);
      const download = await fetch(new URL(link.body.url as string, cluster.baseUrl));
      const hash = createHash('sha256');
      for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
      expect(hash.digest('hex')).toBe(sha256);
      // Gone from the bucket with its submission.
      const deleted = await fetch(`${cluster.baseUrl}/api/v1/forms/${form.id}/submissions/${id}`, {
        method: 'DELETE',
        headers: { 'x-api-key': await cluster.apiKey('default') },
      });
      expect(deleted.status).toBe(204);
      await eventually(async () => {
        const status = await s3.send(new HeadObjectCommand({ Bucket: env.S3_BUCKET, Key: blobKey })).then(
          () => 200,
          (err: { $metadata?: { httpStatusCode?: number } }) => err.$metadata?.httpStatusCode,
        );
        expect(status).toBe(404);
      }, 30_000);
    } finally {
      await browser.close();
      await site.close();
      s3.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  it('site forms: gateways booting at once provision one site organization and three forms; a waitlist post is stored', async () => {
    type Site = { forms: Record<'example' | 'waitlist' | 'feedback', string | null> };
    const siteOf = async (url: string) => ((await (await fetch(`${url}/api/v1/site`)).json()) as Site).forms;
    let forms: Site['forms'] | undefined;
    await eventually(async () => {
      forms = await siteOf(cluster.baseUrl);
      expect(Object.values(forms).every((f) => f?.startsWith('/f/'))).toBe(true);
    }, 30_000);
    // Two more gateways on a fresh accounts database, started together: both insert the site organization.
    const env = { MONGO_DB_PREFIX: `${cluster.mongoDbPrefix}_site` };
    const [a, b] = await Promise.all([
      cluster.startExtraGateway('gateway-site-a', env),
      cluster.startExtraGateway('gateway-site-b', env),
    ]);
    try {
      for (const g of [a, b]) await eventually(async () => expect(await siteOf(g.url)).toEqual(forms), 30_000);
      // The forms service holds exactly three forms for the site organization, whoever created them.
      const token = await createIdentityCodec(cluster.identitySecret).sign({
        userId: 'e2e',
        email: null,
        orgId: 'formgate-site',
        roles: ['owner'],
        via: 'session',
      });
      const listed = await fetch(`${cluster.processes['forms-1']?.url}/api/v1/forms`, {
        headers: { [IDENTITY_HEADER]: token },
      });
      const slugs = ((await listed.json()) as { data: { slug: string }[] }).data.map((f) => f.slug).sort();
      expect(slugs).toEqual(['example', 'feedback', 'waitlist']);
      const key = String(forms?.waitlist).slice(3);
      await eventually(
        async () => expect((await submit(key, { email: 'e2e@example.test' }, randomUUID())).status).toBe(200),
        30_000,
      );
    } finally {
      await Promise.all([stopProcess(a), stopProcess(b)]);
    }
  });

  it('gateways of one deployment share sessions and the sign-in budget: switching instance resets nothing', async () => {
    const env = { AUTH_SIGN_IN_PER_MINUTE: '3', MONGO_DB_PREFIX: `${cluster.mongoDbPrefix}_pair` };
    const a = await cluster.startExtraGateway('gateway-pair-a', env);
    const b = await cluster.startExtraGateway('gateway-pair-b', env);
    try {
      const user = await createAccounts(a.url, (email, subject) => target().mailLink(email, subject)).signUp();
      const onB = createBrowserSession(b.url);
      for (const [k, v] of user.cookies) onB.cookies.set(k, v);
      expect((await onB.call('GET', '/api/v1/session')).body.user.email).toBe(user.email);

      const statuses = [];
      for (const gateway of [a, b, a, b, a]) {
        const reply = await createBrowserSession(gateway.url).call('POST', '/api/auth/sign-in/email', {
          email: 'nobody@example.test',
          password: 'wrong password!',
        });
        statuses.push(reply.status);
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      const limited = await createBrowserSession(b.url).call('POST', '/api/auth/two-factor/verify-totp', {
        code: '000000',
      });
      expect(limited.status).toBe(401); // another path, its own budget: no challenge cookie
      const again = await createBrowserSession(a.url).call('POST', '/api/auth/sign-in/email', {
        email: 'nobody@example.test',
        password: 'wrong password!',
      });
      expect(again.status).toBe(429);
      expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await Promise.all([stopProcess(a), stopProcess(b)]);
    }
  });

  it('N submissions in → N in the read model, none twice, and billing counts N', async () => {
    const org = `load-${randomUUID().slice(0, 8)}`;
    const form = await createForm('Load', org);
    const acceptedBefore = sumOf(
      (await scrapeAll(['ingest-1', 'ingest-2'])).flat(),
      'formgate_ingest_submissions_total',
      { outcome: 'accepted' },
    );
    const n = 300;
    const acked: string[] = [];
    for (let wave = 0; wave < n / 50; wave++) {
      const results = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const res = await submit(form.key, { n: String(wave * 50 + i) }, randomUUID());
          expect(res.status).toBe(200);
          return ((await res.json()) as { id: string }).id;
        }),
      );
      acked.push(...results);
    }
    const stored = await eventually(async () => {
      const ids = await allSubmissionIds(form.id, org);
      expect(ids).toHaveLength(n);
      return ids;
    }, 60_000);
    expect(new Set(stored)).toEqual(new Set(acked));
    expect((await api('GET', `/api/v1/forms/${form.id}`, undefined, org)).body.submissionCount).toBe(n);
    // Metrics (issue 15): every process answers /metrics; the ingest instances counted the burst; each consumer group of
    // ingest.submission reports its partitions (those it fetched from: the burst's one, keyed by form) back at lag 0.
    const accepted = sumOf((await scrapeAll(['ingest-1', 'ingest-2'])).flat(), 'formgate_ingest_submissions_total', {
      outcome: 'accepted',
    });
    expect(accepted - acceptedBefore).toBe(n);
    await eventually(async () => {
      // Every process still running (earlier tests start extra gateways and stop them again).
      const running = Object.values(cluster.processes).filter((p) => p.child.exitCode === null && !p.child.signalCode);
      const all = (await scrapeAll(running.map((p) => p.name))).flat();
      const lag = samplesOf(all, 'formgate_consumer_lag', { topic: 'ingest.submission' });
      for (const group of [
        'forms.submission-received',
        'billing.usage',
        'notifications.deliveries',
        'notifications.webhooks',
      ]) {
        const partitions = new Set(lag.filter((s) => s.labels.group === group).map((s) => s.labels.partition));
        expect([group, partitions.size > 0]).toEqual([group, true]);
      }
      expect(lag.filter((s) => s.value !== 0)).toEqual([]);
    }, 30_000);
    // HTTP by route template: at the edge, and in the forms instances behind it.
    const [gateway = [], ...forms] = await scrapeAll(['gateway', 'forms-1', 'forms-2']);
    expect(sumOf(gateway, 'formgate_http_requests_total', { route: '/f/*', status: '200' })).toBeGreaterThanOrEqual(n);
    const byId = { route: '/api/v1/forms/:formId', method: 'GET', status: '200' };
    expect(sumOf(gateway, 'formgate_http_requests_total', { service: 'gateway', ...byId })).toBeGreaterThanOrEqual(1);
    expect(sumOf(forms.flat(), 'formgate_http_requests_total', { service: 'forms', ...byId })).toBeGreaterThanOrEqual(
      1,
    );
    await eventually(async () => {
      const usage = await api('GET', '/api/v1/billing/usage', undefined, org);
      expect(usage.body.submissions).toEqual({ used: n, max: 50_000, held: 0 });
      expect(usage.body.plan).toEqual({ id: 'free', name: 'Free (tests)' });
    }, 30_000);
    // The plans in force (the harness's PLANS_FILE), public.
    const plans = await fetch(`${cluster.baseUrl}/api/v1/plans`);
    expect(plans.status).toBe(200);
    expect(await plans.json()).toMatchObject({
      defaultPlan: 'free',
      billingEnabled: false,
      data: [{ id: 'free' }, { id: 'pro' }],
    });
  });

  it('traces: one submission is one trace across the gateway, ingest and forms processes, through Kafka', async () => {
    const form = await createForm('Traced');
    const marker = `trace-marker-${randomUUID()}`;
    expect((await submit(form.key, { note: marker }, randomUUID())).status).toBe(200);
    const trace = await eventually(() => {
      const sent = otlp
        .spans()
        .filter((s) => s.name === 'POST /f/*' && s.attributes['http.response.status_code'] === 200)
        .map((edge) => otlp.spans().filter((s) => s.traceId === edge.traceId))
        .find((spans) =>
          spans.some((s) => s.attributes['messaging.consumer.group.name'] === 'forms.submission-received'),
        );
      expect(sent).toBeDefined();
      return sent ?? [];
    }, 20_000);
    const by = (service: string, name: string) =>
      trace.find((s) => s.resource['service.name'] === service && s.name === name);
    const gateway = by('gateway', 'POST /f/*');
    const ingest = by('ingest', 'POST /f/:key');
    const send = by('ingest', 'send ingest.submission');
    const consumer = trace.find(
      (s) =>
        s.resource['service.name'] === 'forms' &&
        s.attributes['messaging.consumer.group.name'] === 'forms.submission-received',
    );
    expect(ingest?.parentSpanId).toBe(gateway?.spanId);
    expect(['ingest-1', 'ingest-2']).toContain(ingest?.resource['service.instance.id']);
    expect(send?.parentSpanId).toBe(ingest?.spanId);
    expect(send?.attributes['messaging.system']).toBe('kafka');
    expect(consumer?.parentSpanId).toBe(send?.spanId);
    expect(JSON.stringify(otlp.raw())).not.toContain(marker);
  });

  it('a client retry with the same Idempotency-Key stays one submission', async () => {
    const form = await createForm('Retry');
    const key = randomUUID();
    const ids = await Promise.all(
      [0, 1, 2, 3].map(async () => ((await (await submit(form.key, { a: '1' }, key)).json()) as { id: string }).id),
    );
    expect(new Set(ids).size).toBe(1);
    await eventually(async () => expect(await allSubmissionIds(form.id)).toEqual([ids[0]]), 30_000);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await allSubmissionIds(form.id)).toEqual([ids[0]]);
    expect((await api('GET', `/api/v1/forms/${form.id}`)).body.submissionCount).toBe(1);
  });

  it('speaks Formspree’s wire format to @formspree/core', async () => {
    const form = await createForm('Formspree');
    const client = createClient();
    const ok = await client.submitForm(
      form.key,
      { email: 'a@example.com', message: 'hi' },
      { endpoint: cluster.baseUrl },
    );
    expect(ok.kind).toBe('success');
    const empty = await client.submitForm(form.key, {}, { endpoint: cluster.baseUrl });
    expect(empty.kind).toBe('error');
    expect(empty.kind === 'error' && empty.getFormErrors().map((e) => e.code)).toEqual(['EMPTY']);
    const missing = await client.submitForm('nosuchform000', { a: '1' }, { endpoint: cluster.baseUrl });
    expect(missing.kind === 'error' && missing.getFormErrors().map((e) => e.code)).toEqual(['FORM_NOT_FOUND']);
  });

  it('accounts over SMTP: sign up, verify, organization, form, post, list — invisible to another organization', async () => {
    const { accounts } = cluster;
    const owner = await accounts.signUp();
    const org = await accounts.createOrg(owner, 'Distributed Co');
    const created = await owner.call('POST', '/api/v1/forms', { name: 'Contact' });
    expect(created.status).toBe(201);
    const form = created.body as { id: string; key: string };
    await eventually(
      async () => expect((await submit(form.key, { hello: 'world' }, randomUUID())).status).toBe(200),
      30_000,
    );
    const list = await eventually(async () => {
      const reply = await owner.call('GET', `/api/v1/forms/${form.id}/submissions`);
      expect(reply.body.data).toHaveLength(1);
      return reply.body;
    }, 30_000);
    expect(list.data[0].fields).toEqual([{ name: 'hello', value: 'world' }]);

    const stranger = await accounts.signUp();
    await accounts.createOrg(stranger, 'Elsewhere');
    expect((await stranger.call('GET', `/api/v1/forms/${form.id}/submissions`)).status).toBe(404);
    const member = await accounts.addMember(owner, org, 'member');
    const denied = await member.call('POST', '/api/v1/forms', { name: 'Nope' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe('You are not allowed to access resource: form');
  });

  it('organization lifecycle travels over Kafka: the orgs service audits it, deletion purges every service', async () => {
    const { accounts } = cluster;
    const owner = await accounts.signUp();
    const org = await accounts.createOrg(owner, 'Short-lived');
    const form = (await owner.call('POST', '/api/v1/forms', { name: 'Soon gone' })).body as { id: string; key: string };
    await eventually(async () => {
      const log = await owner.call('GET', '/api/v1/orgs/audit-log');
      expect(log.body.data.map((e: { type: string }) => e.type)).toEqual(['member.added', 'organization.created']);
    }, 30_000);
    await eventually(async () => expect((await submit(form.key, { a: '1' }, randomUUID())).status).toBe(200), 30_000);
    expect((await owner.call('POST', '/api/auth/organization/delete', { organizationId: org.id })).status).toBe(200);
    await eventually(async () => expect((await submit(form.key, { a: '2' }, randomUUID())).status).toBe(410), 30_000);
  });

  it('the audit log is a hash chain in MongoDB too: it verifies, then names an entry altered in the database', async () => {
    const { accounts } = cluster;
    const owner = await accounts.signUp();
    await accounts.createOrg(owner, 'Audited');
    const key = await accounts.createApiKey(owner, 'write');
    const entries = await eventually(async () => {
      const log = (await owner.call('GET', '/api/v1/orgs/audit-log')).body.data as {
        id: string;
        seq: number;
        type: string;
      }[];
      expect(log.map((e) => e.type).sort()).toEqual(['api-key.created', 'member.added', 'organization.created']);
      return log;
    }, 30_000);
    // What `formgate audit verify` does (its process is tested in embedded mode): the chain in order, every hash
    // recomputed here.
    const verify = async () => {
      const page = await fetch(`${cluster.baseUrl}/api/v1/orgs/audit-log/chain?limit=1000`, {
        headers: { 'x-api-key': key },
      }).then((r) => r.json() as Promise<AuditChainPageDto>);
      const verifier = createAuditChainVerifier(page.orgId);
      await verifier.check(page.data.map((e) => ({ ...e, orgId: page.orgId })));
      return verifier.result();
    };
    expect(await verify()).toMatchObject({ ok: true, entries: 3 });

    const altered = entries.find((e) => e.seq === 2) as { id: string; seq: number };
    const conn = await mongoose
      .createConnection(process.env.MONGO_URL as string, { dbName: `${cluster.mongoDbPrefix}_orgs` })
      .asPromise();
    try {
      await conn
        .collection('audit_log')
        .updateOne({ _id: altered.id } as never, { $set: { occurredAt: '2020-01-01T00:00:00.000Z' } });
    } finally {
      await conn.close();
    }
    expect(await verify()).toMatchObject({ ok: false, seq: 2, id: altered.id, entries: 1 });
  });

  it('a body over the limit gets its 413 through the gateway, not a 503 to retry forever', async () => {
    const form = await createForm('Too big');
    for (const size of [300 * 1024, 8 * 1024 * 1024]) {
      const res = await fetch(`${cluster.baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: `a=${'x'.repeat(size)}`,
      });
      expect(res.status, `${size} bytes`).toBe(413);
      expect(((await res.json()) as { errors: { code: string }[] }).errors[0]?.code).toBe('PAYLOAD_TOO_LARGE');
    }
  });

  it('trusts only gateway-signed identities: a client-sent valid token is stripped, a forged one refused', async () => {
    const identity = { userId: 'u', email: null, orgId: 'default', roles: ['owner'], via: 'session' as const };
    const genuine = await createIdentityCodec(cluster.identitySecret).sign(identity);
    const viaGateway = await fetch(`${cluster.baseUrl}/api/v1/forms`, { headers: { [IDENTITY_HEADER]: genuine } });
    expect(viaGateway.status).toBe(401);
    const forms = cluster.processes['forms-1']?.url;
    expect((await fetch(`${forms}/api/v1/forms`, { headers: { [IDENTITY_HEADER]: genuine } })).status).toBe(200);
    const forged = await createIdentityCodec('not-the-secret-of-this-deployment!!').sign(identity);
    for (const name of ['forms-1', 'billing', 'orgs']) {
      const path = { 'forms-1': '/api/v1/forms', billing: '/api/v1/billing/usage', orgs: '/api/v1/orgs/settings' }[
        name
      ];
      const res = await fetch(`${cluster.processes[name]?.url}${path}`, { headers: { [IDENTITY_HEADER]: forged } });
      expect(res.status, name).toBe(401);
    }
  });

  const signalAndWait = async (name: string, signal: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT') => {
    const child = cluster.processes[name]?.child;
    if (!child) throw new Error(`no process ${name}`);
    const exited = signal === 'SIGKILL' ? once(child, 'exit') : Promise.resolve();
    child.kill(signal);
    await exited;
  };
  const healthOfGateway = async () =>
    ((await (await fetch(`${cluster.baseUrl}/healthz`)).json()) as { upstreams: Record<string, unknown> }).upstreams;

  it('routes around a killed ingest and a killed forms instance: every submission and API read succeeds', async () => {
    const form = await createForm('Failover');
    await Promise.all([signalAndWait('ingest-1', 'SIGKILL'), signalAndWait('forms-1', 'SIGKILL')]);
    try {
      const statuses = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const res =
            i % 2 ? await api('GET', `/api/v1/forms/${form.id}`) : await submit(form.key, { i: `${i}` }, randomUUID());
          return res.status;
        }),
      );
      expect(statuses).toEqual(Array(40).fill(200));
      expect(await healthOfGateway()).toMatchObject({
        ingest: { healthy: 1, total: 2 },
        forms: { healthy: 1, total: 2 },
      });
    } finally {
      await Promise.all([cluster.restart('ingest-1'), cluster.restart('forms-1')]);
    }
    await eventually(async () => {
      await Promise.all([submit(form.key, { back: '1' }, randomUUID()), api('GET', `/api/v1/forms/${form.id}`)]);
      expect(await healthOfGateway()).toMatchObject({ ingest: { healthy: 2 }, forms: { healthy: 2 } });
    }, 40_000);
  }, 120_000);

  it('every process is ready: /readyz checks its bus, its databases (one round trip each) and its views (docs/operations.md)', async () => {
    for (const name of ['gateway', 'ingest-1', 'forms-1', 'billing', 'orgs', 'notifications']) {
      const res = await fetch(`${cluster.processes[name]?.url}/readyz`);
      const body = (await res.json()) as { status: string; checks: { name: string; ok: boolean }[] };
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
      expect(body.checks.map((c) => c.name).sort()).toEqual(['bus', 'started', 'stores']);
    }
  });

  it('a stopped billing process answers 504 within the deadline, and 200 once it runs again', async () => {
    await api('GET', '/api/v1/billing/usage');
    await signalAndWait('billing', 'SIGSTOP');
    try {
      const started = performance.now();
      const stuck = await api('GET', '/api/v1/billing/usage');
      const elapsed = performance.now() - started;
      expect({ status: stuck.status, code: (stuck.body.error as { code: string }).code }).toEqual({
        status: 504,
        code: 'UPSTREAM_TIMEOUT',
      });
      expect(elapsed).toBeGreaterThan(9_000);
      expect(elapsed).toBeLessThan(13_000);
      // The edge stays ready: its readiness never depends on a service behind it.
      expect((await fetch(`${cluster.baseUrl}/readyz`)).status).toBe(200);
    } finally {
      await signalAndWait('billing', 'SIGCONT');
    }
    await eventually(async () => expect((await api('GET', '/api/v1/billing/usage')).status).toBe(200), 15_000);
  }, 60_000);

  it('with its accounts database stopped, a gateway keeps accepting a cached API key and answers 503 for others', async () => {
    const db = await dedicatedFerretDb(OUTAGE_FERRETDB_PORT, resolve(import.meta.dirname, '../../.run/test'));
    const gateway = await cluster.startExtraGateway('gateway-db-outage', {
      MONGO_URL: db.url,
      MONGO_DB_PREFIX: `${cluster.mongoDbPrefix}_outage`,
    });
    try {
      const accounts = createAccounts(gateway.url, (email, subject) => target().mailLink(email, subject));
      const owner = await accounts.signUp();
      await accounts.createOrg(owner);
      const [cached, uncached] = [await accounts.createApiKey(owner), await accounts.createApiKey(owner, 'read')];
      const read = (key: string) => fetch(`${gateway.url}/api/v1/forms`, { headers: { 'x-api-key': key } });
      expect((await read(cached)).status).toBe(200);

      await db.stop();
      expect((await read(cached)).status).toBe(200);
      // Its own database is down: not ready (the check is bounded: the probe answers within its timeout).
      await eventually(async () => {
        const res = await fetch(`${gateway.url}/readyz`);
        const body = (await res.json()) as { checks: { name: string; ok: boolean }[] };
        expect({ status: res.status, failed: body.checks.filter((c) => !c.ok).map((c) => c.name) }).toEqual({
          status: 503,
          failed: ['stores'],
        });
      }, 15_000);
      const started = performance.now();
      const refused = await read(uncached);
      expect(performance.now() - started).toBeLessThan(5_000);
      expect({
        status: refused.status,
        code: ((await refused.json()) as { error: { code: string } }).error.code,
      }).toEqual({ status: 503, code: 'AUTH_UNAVAILABLE' });
      expect((await owner.call('GET', '/api/v1/session')).status).toBe(503);

      await db.start();
      await eventually(async () => expect((await read(uncached)).status).toBe(200), 30_000);
      await eventually(async () => expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200), 30_000);
      expect((await owner.call('GET', '/api/v1/session')).status).toBe(200);
    } finally {
      await stopProcess(gateway);
      await db.stop();
    }
  }, 120_000);

  it('a restart of every process loses nothing acknowledged', async () => {
    const form = await createForm('Restart');
    const before = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const res = await submit(form.key, { i: String(i) }, randomUUID());
        expect(res.status).toBe(200);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    const stopped = Object.values(cluster.processes);
    await cluster.restartAll();
    // SIGTERM drained every process within its deadline: each exited 0 (docs/operations.md "Shutdown").
    expect(stopped.map((p) => [p.name, p.child.exitCode])).toEqual(stopped.map((p) => [p.name, 0]));
    const after = await submit(form.key, { i: 'after' }, randomUUID());
    expect(after.status).toBe(200);
    const afterId = ((await after.json()) as { id: string }).id;
    await eventually(async () => {
      expect(new Set(await allSubmissionIds(form.id))).toEqual(new Set([...before, afterId]));
    }, 60_000);
  }, 300_000);
});
