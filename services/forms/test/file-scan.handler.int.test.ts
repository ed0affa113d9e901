import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { BusMessage } from '@formgate/bus';
import { encodeEvent, type Form, Topics } from '@formgate/contracts';
import { createLogger } from '@formgate/kit';
import { createSqliteBlobStore, openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EICAR, EICAR_SIGNATURE, startClamd, type TestClamd } from '../../../tests/harness/clamd.ts';
import { createClamavScanner } from '../src/files/clamav-scanner.ts';
import { ScannerUnavailableError } from '../src/files/file-scanner.ts';
import { createFileScanHandler } from '../src/handlers/file-scan.handler.ts';
import { STORED_WAIT_MS, SubmissionNotYetStoredError } from '../src/handlers/not-yet-stored.ts';
import type { SubmissionRecord } from '../src/store/records.ts';
import { form, org, submission } from './forms-fixtures.ts';
import { openSqliteFormsStores } from './sqlite-stores.ts';

const RECEIVED_AT = '2026-05-01T10:00:00.000Z';
const message = (s: SubmissionRecord, offset = 0): BusMessage =>
  ({
    topic: Topics.ingestSubmission,
    partition: 0,
    offset: String(offset),
    key: s.formId,
    headers: {},
    timestamp: Date.now(),
    value: encodeEvent(Topics.ingestSubmission, {
      id: randomUUID(),
      type: 'submission.received',
      version: 1,
      occurredAt: s.createdAt,
      data: {
        submissionId: s.id,
        formId: s.formId,
        orgId: s.orgId,
        receivedAt: s.createdAt,
        fields: s.fields,
        files: s.files,
        meta: {},
        spam: s.spam,
        held: false,
      },
    }),
  }) as BusMessage;

describe('forms.file-scan: the malware scan of stored files (real clamd)', () => {
  let clamd: TestClamd;
  const stores = openSqliteFormsStores();
  const blobs = createSqliteBlobStore(openSqlite(':memory:'));
  const clock = { now: () => new Date(Date.parse(RECEIVED_AT) + 5_000) };
  const logger = createLogger({ level: 'silent', name: 'forms' });
  let scans = 0;
  const handler = () => {
    const scanner = createClamavScanner({ address: clamd.address, timeoutMs: 5_000 });
    return createFileScanHandler({
      forms: stores.forms,
      submissions: stores.submissions,
      blobs,
      clock,
      logger,
      scanner: {
        ping: () => scanner.ping(),
        scan: (data, size) => {
          scans++;
          return scanner.scan(data, size);
        },
      },
    });
  };

  beforeAll(async () => {
    clamd = await startClamd();
  });
  afterAll(() => clamd?.close());

  /** A submission of a new form with one file per content, stored `pending` unless `store` is false. */
  async function setUp(contents: string[], options: { store?: boolean; f?: Form } = {}) {
    const scope = org();
    const f = options.f ?? form(scope.orgId);
    if (!options.f) await stores.forms.insertForm(f);
    const files = [];
    for (const [i, content] of contents.entries()) {
      const blobKey = randomBytes(12).toString('base64url');
      const { size } = await blobs.put(
        blobKey,
        Readable.from([Buffer.from(content)]),
        { contentType: 'text/plain', filename: `f${i}.txt` },
        1e8,
      );
      files.push({ field: `file${i}`, blobKey, filename: `f${i}.txt`, contentType: 'text/plain', size });
    }
    const s = submission(f, RECEIVED_AT, {
      files,
      fileScans: Object.fromEntries(files.map((file) => [file.blobKey, { status: 'pending' as const }])),
    });
    if (options.store !== false) await stores.submissions.insertSubmissions([s]);
    return { scope: { orgId: f.orgId }, f, s, keys: files.map((file) => file.blobKey) };
  }

  it('records clean and infected verdicts, naming what was found; a redelivery scans nothing again', async () => {
    const { scope, f, s, keys } = await setUp(['hello, here is my CV', `prefix ${EICAR} suffix`]);
    const handle = handler();
    const before = scans;
    await handle([message(s)]);
    const read = await stores.submissions.getSubmission(scope, f.id, s.id);
    const scannedAt = clock.now().toISOString();
    expect(read?.fileScans).toEqual({
      [keys[0] as string]: { status: 'clean', scannedAt },
      [keys[1] as string]: { status: 'infected', detail: EICAR_SIGNATURE, scannedAt },
    });
    // Quarantined, not deleted: the file stays (it goes with its submission).
    expect(await blobs.get(keys[1] as string)).not.toBeNull();
    await handle([message(s, 1)]);
    expect(scans - before).toBe(2);
  });

  it('skips submissions without files, files received unscanned, forms and files that are gone', async () => {
    const handle = handler();
    const before = scans;
    // No file.
    const bare = await setUp([]);
    // Received while files were not scanned: no pending scan.
    const unscanned = await setUp(['x'], { store: false });
    const { fileScans: _, ...withoutScans } = unscanned.s;
    await stores.submissions.insertSubmissions([withoutScans]);
    // Its form deleted meanwhile (never stored).
    const scope = org();
    const goneForm = await setUp(['y'], { store: false, f: form(scope.orgId) });
    // Its blob deleted meanwhile.
    const goneBlob = await setUp(['z']);
    await blobs.delete(goneBlob.keys[0] as string);
    await handle([message(bare.s), message(withoutScans), message(goneForm.s), message(goneBlob.s)]);
    expect(scans - before).toBe(0);
    expect((await stores.submissions.getSubmission(goneBlob.scope, goneBlob.f.id, goneBlob.s.id))?.fileScans).toEqual({
      [goneBlob.keys[0] as string]: { status: 'pending' },
    });
  });

  it('waits for a submission not stored yet, then scans it; one never stored is given up after a while', async () => {
    const { scope, f, s } = await setUp(['late'], { store: false });
    const handle = handler();
    await expect(handle([message(s)])).rejects.toBeInstanceOf(SubmissionNotYetStoredError);
    await stores.submissions.insertSubmissions([s]);
    await handle([message(s)]);
    expect(Object.values((await stores.submissions.getSubmission(scope, f.id, s.id))?.fileScans ?? {})).toMatchObject([
      { status: 'clean' },
    ]);
    const never = await setUp(['never'], { store: false });
    const later = createFileScanHandler({
      forms: stores.forms,
      submissions: stores.submissions,
      blobs,
      logger,
      clock: { now: () => new Date(Date.parse(RECEIVED_AT) + STORED_WAIT_MS) },
      scanner: createClamavScanner({ address: clamd.address }),
    });
    await later([message(never.s)]);
  });

  it('a scanner outage fails the batch (retried by the bus) and leaves every file pending; the retry judges them', async () => {
    const { scope, f, s, keys } = await setUp([`${EICAR}`]);
    const handle = handler();
    await clamd.stop();
    try {
      await expect(handle([message(s)])).rejects.toBeInstanceOf(ScannerUnavailableError);
      expect((await stores.submissions.getSubmission(scope, f.id, s.id))?.fileScans).toEqual({
        [keys[0] as string]: { status: 'pending' },
      });
    } finally {
      await clamd.start();
    }
    await handle([message(s)]);
    expect((await stores.submissions.getSubmission(scope, f.id, s.id))?.fileScans?.[keys[0] as string]?.status).toBe(
      'infected',
    );
  });

  it('a file the scanner will not judge (over its size limit) is recorded failed, not clean', async () => {
    const small = await startClamd({ streamMaxBytes: 1024 * 1024 });
    try {
      const { scope, f, s, keys } = await setUp(['a'.repeat(3 * 1024 * 1024)]);
      await createFileScanHandler({
        forms: stores.forms,
        submissions: stores.submissions,
        blobs,
        clock,
        logger,
        scanner: createClamavScanner({ address: small.address, maxBytes: 1024 * 1024 }),
      })([message(s)]);
      const scan = (await stores.submissions.getSubmission(scope, f.id, s.id))?.fileScans?.[keys[0] as string];
      expect(scan).toMatchObject({ status: 'failed', detail: expect.stringContaining('StreamMaxLength') });
    } finally {
      await small.close();
    }
  });
});
