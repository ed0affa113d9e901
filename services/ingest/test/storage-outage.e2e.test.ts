import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { CreateBucketCommand, ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { EventBus } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import {
  DEFAULT_FORM_SETTINGS,
  encodeEvent,
  type Form,
  TOPIC_SPECS,
  Topics,
  type UploadsGrant,
} from '@formgate/contracts';
import { createLogger, systemClock, systemIds } from '@formgate/kit';
import { eventually } from '@formgate/kit/testing';
import { dedicatedSeaweedFs } from '@formgate/kit/testing/backends';
import { createS3BlobStore } from '@formgate/store/s3';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIngestService, type IngestService } from '../src/create-service.ts';

/** Its own SeaweedFS, which this file stops and starts: next to the shared one of the e2e tier. */
const PORT = Number(process.env.TEST_SEAWEEDFS_PORT ?? 29333) + 20;
const RUN_DIR = resolve(import.meta.dirname, '../../../.run/test');
const MiB = 1024 * 1024;
const BUCKET = 'outage';

/**
 * Issue 33: an object store outage in the middle of an upload leaves nothing half-accepted. Ingest as it runs in
 * distributed mode over S3 (a real SeaweedFS, taken down mid-request), with its log on a local bus: the request is
 * refused with 503, no submission reaches the log, and no object or open multipart upload is left once the store
 * is back.
 */
describe('ingest on S3: a storage outage mid-upload', () => {
  let s3: Awaited<ReturnType<typeof dedicatedSeaweedFs>>;
  let blobs: ReturnType<typeof createS3BlobStore>;
  let bus: EventBus;
  let ingest: IngestService;
  let server: Server;
  let base: string;
  const form: Form = {
    id: 'form-outage',
    orgId: 'org-outage',
    name: 'Outage',
    slug: 'outage',
    key: 'outagekey',
    settings: DEFAULT_FORM_SETTINGS,
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    version: 1,
  };

  beforeAll(async () => {
    s3 = await dedicatedSeaweedFs(PORT, RUN_DIR);
    const u = new URL(s3.url);
    blobs = createS3BlobStore({
      endpoint: `${u.protocol}//${u.host}`,
      region: 'us-east-1',
      bucket: BUCKET,
      credentials: { accessKeyId: decodeURIComponent(u.username), secretAccessKey: decodeURIComponent(u.password) },
      forcePathStyle: true,
    });
    await blobs.client.send(new CreateBucketCommand({ Bucket: BUCKET })).catch(() => {});
    bus = createSqliteBus(openSqlite(join(mkdtempSync(join(tmpdir(), 'fg-outage-')), 'bus.db')), { idlePollMs: 20 });
    await bus.ensureTopics(TOPIC_SPECS);
    await bus.publish(Topics.formsForm, [
      {
        key: form.id,
        value: encodeEvent(Topics.formsForm, {
          id: 'e1',
          type: 'form.upserted',
          version: 1,
          occurredAt: form.createdAt,
          data: form,
        }),
      },
    ]);
    ingest = createIngestService({
      bus,
      blobs,
      clock: systemClock,
      ids: systemIds,
      logger: createLogger({ level: 'silent', name: 'ingest' }),
      publicBaseUrl: 'http://forms.example',
      secret: 'an-ingest-secret-of-at-least-32-characters',
      directUploads: { presignPut: blobs.presignPut },
    });
    await ingest.start();
    server = createServer(ingest.handle);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 240_000);
  afterAll(async () => {
    server?.close();
    await ingest?.stop();
    await bus?.close();
    blobs?.close();
    await s3?.stop();
  });

  /** Records appended to `ingest.submission` so far. */
  const appended = async () =>
    (await bus.lag([{ group: 'test.none', topic: Topics.ingestSubmission }])).reduce((n, l) => n + Number(l.end), 0);
  const objects = async () => (await blobs.client.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? [];
  const openUploads = async () =>
    (await blobs.client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET }))).Uploads ?? [];

  it('a multipart post whose store goes down mid-file is refused with 503, and leaves nothing', async () => {
    const before = await appended();
    // (The store's data directory outlives a run: what an earlier one left is not this post's.)
    const kept = (await objects()).map((o) => o.Key);
    const boundary = 'fgOutageBoundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="scan"; filename="scan.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`,
    );
    let release: () => void = () => {};
    const paused = new Promise<void>((r) => {
      release = r;
    });
    const body = Readable.from(
      (async function* () {
        yield head;
        for (let i = 0; i < 12; i++) yield randomBytes(MiB);
        // The first parts are in the store; now it goes down.
        await paused;
        for (let i = 0; i < 12; i++) yield randomBytes(MiB);
        yield Buffer.from(`\r\n--${boundary}--\r\n`);
      })(),
    );
    const answer = fetch(`${base}/f/${form.key}`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Readable.toWeb(body) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    await eventually(async () => expect((await openUploads()).length).toBeGreaterThan(0), 20_000);
    await s3.stop();
    release();
    const res = await answer;
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ errors: [expect.objectContaining({ code: 'UNAVAILABLE' })] });
    await s3.start();
    expect(await appended()).toBe(before);
    // The upload's parts could not be discarded during the outage: they are, once the store answers again.
    await eventually(async () => expect(await openUploads()).toEqual([]), 60_000);
    expect((await objects()).map((o) => o.Key)).toEqual(kept);
  }, 120_000);

  it('a submission naming direct uploads while the store is down is refused with 503, then accepted once it is back', async () => {
    const before = await appended();
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(2 * MiB)]);
    const grant = await fetch(`${base}/f/${form.key}/uploads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        files: [{ field: 'cv', filename: 'cv.pdf', contentType: 'application/pdf', size: pdf.length }],
      }),
    });
    expect(grant.status).toBe(201);
    const granted = (await grant.json()) as UploadsGrant;
    const target = granted.files[0] as UploadsGrant['files'][number];
    expect((await fetch(target.url, { method: 'PUT', headers: target.headers, body: pdf })).status).toBe(200);
    const submit = () =>
      fetch(`${base}/f/${form.key}`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ name: 'Ada', _uploads: granted.uploads }),
      });
    await s3.stop();
    try {
      const refused = await submit();
      expect(refused.status).toBe(503);
      expect(await appended()).toBe(before);
    } finally {
      await s3.start();
    }
    const accepted = await submit();
    expect(accepted.status).toBe(200);
    expect(await appended()).toBe(before + 1);
  }, 120_000);
});
