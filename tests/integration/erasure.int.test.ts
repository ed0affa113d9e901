import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DeliveryDto, ErasureKeysDto, SignedErasureReceipt, SubjectAccessDto } from '@formgate/contracts';
import { verifyErasureReceipt } from '@formgate/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForMailLink } from '../harness/browser-session.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';
import { startWebhookRecorder } from '../harness/webhook-recorder.ts';

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    try {
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  });
}

/** A file's bytes, or none when it went between the listing and the read (a mail file renamed into place). */
function bytesOf(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw err;
  }
}

/** The files of `DATA_DIR` holding `needle` (any case), byte by byte (latin1 keeps every byte one character). */
const holding = (dataDir: string, needle: string) =>
  filesUnder(dataDir).filter((f) => bytesOf(f).toString('latin1').toLowerCase().includes(needle.toLowerCase()));

/**
 * Issue 31 end to end in embedded mode: submissions carrying an address in two forms (a field, `_replyto`, a file,
 * an autoresponse and a notification mailed, webhooks delivered), erased in one call; then nothing under
 * `DATA_DIR` — databases, their WAL, mail files — holds the address, the messages or the file, while another
 * submitter's submission is intact. The receipt verifies with the instance's public key, and not once altered.
 */
describe('embedded mode: erasure by submitter leaves nothing of the submitter in DATA_DIR', () => {
  let app: TestApp;
  let receiver: Awaited<ReturnType<typeof startWebhookRecorder>>;
  const RECIPIENT = 'team-inbox@example.com';
  // Single words, so the search index's tokens are looked for too.
  const ADDRESS = 'Zedquux7@Example.com';
  const MARKERS = ['xylophonealpha42', 'xylophonegamma42', 'xylophonefile42', 'zedquux7'];
  const KEPT = 'xylophonekept42';

  beforeAll(async () => {
    receiver = await startWebhookRecorder();
    app = await startTestApp({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
    await app.api('POST', '/api/v1/notification-emails', { email: RECIPIENT });
    const link = await waitForMailLink(app.dataDir, RECIPIENT, /^Confirm /);
    expect((await fetch(link.replace('//localhost:', '//127.0.0.1:'), { redirect: 'manual' })).status).toBe(303);
  });
  afterAll(async () => {
    await app.stop();
    await receiver.close();
  });

  const submit = async (key: string, body: FormData | Record<string, string>) => {
    const res = await fetch(`${app.baseUrl}/f/${key}`, {
      method: 'POST',
      headers:
        body instanceof FormData
          ? { accept: 'application/json' }
          : { 'content-type': 'application/json', accept: 'application/json' },
      body: body instanceof FormData ? body : JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };
  const deliveries = async (formId: string, id: string) =>
    (await app.api('GET', `/api/v1/forms/${formId}/submissions/${id}/deliveries`)).body.data as DeliveryDto[];

  it('erases in one call, signs a receipt, and a byte scan of DATA_DIR finds no trace', async () => {
    const a = await app.createForm({
      name: 'Applications',
      settings: { notifications: { emails: [RECIPIENT], autoresponse: { enabled: true, text: 'Thanks!' } } },
    });
    const b = await app.createForm({ name: 'Feedback', settings: { notifications: { emails: [RECIPIENT] } } });
    for (const form of [a, b]) {
      await eventually(async () => {
        const res = await app.api('POST', `/api/v1/forms/${form.id}/webhooks`, { url: `${receiver.url}/${form.id}` });
        expect(res.status).toBe(201);
      });
    }

    const upload = new FormData();
    upload.append('email', ADDRESS);
    upload.append('message', `Hello, I am ${MARKERS[0]}`);
    upload.append('cv', new Blob([`%PDF-1.4 ${MARKERS[2]}`], { type: 'application/pdf' }), 'cv.pdf');
    const first = await submit(a.key, upload);
    const second = await submit(b.key, { _replyto: ADDRESS.toLowerCase(), message: `Feedback ${MARKERS[1]}` });
    const kept = await submit(a.key, { email: 'someone-else@example.com', message: `Keep ${KEPT}` });
    // Every delivery made: the notification, the autoresponse to the submitter, the webhooks.
    await eventually(async () => {
      const all = [...(await deliveries(a.id, first)), ...(await deliveries(b.id, second))];
      expect(
        all
          .filter((d) => d.status === 'succeeded')
          .map((d) => `${d.channel} ${d.purpose}`)
          .sort(),
      ).toEqual([
        'email autoresponse',
        'email notification',
        'email notification',
        'webhook standard',
        'webhook standard',
      ]);
    }, 15_000);
    for (const marker of [...MARKERS, KEPT]) expect(holding(app.dataDir, marker), marker).not.toEqual([]);

    // Subject access: the same search, everything held, the file through its link; nothing erased.
    const access = await app.api('POST', '/api/v1/subject-access', { email: ADDRESS.toLowerCase() });
    expect(access.status).toBe(200);
    const held = access.body as unknown as SubjectAccessDto;
    expect(held.submissions.map((s) => s.id).sort()).toEqual([first, second].sort());
    const withFile = held.submissions.find((s) => s.id === first);
    expect(withFile).toMatchObject({ formId: a.id, formName: 'Applications' });
    expect(withFile?.fields).toContainEqual({ name: 'message', value: `Hello, I am ${MARKERS[0]}` });
    const [file] = withFile?.files ?? [];
    expect(file).toMatchObject({ field: 'cv', filename: 'cv.pdf', contentType: 'application/pdf' });
    const download = await fetch(`${app.baseUrl}${file?.url}`);
    expect(await download.text()).toContain(MARKERS[2]);
    expect(JSON.stringify(held)).not.toContain(KEPT);

    const res = await app.api('POST', '/api/v1/erasures', { email: ADDRESS.toUpperCase() });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const signed = res.body as unknown as SignedErasureReceipt;
    expect(signed.receipt).toMatchObject({ count: 2, type: 'erasure-receipt/1' });
    expect(signed.receipt.submissions.map((s) => s.id).sort()).toEqual([first, second].sort());
    expect([...signed.receipt.forms].sort()).toEqual([a.id, b.id].sort());
    expect(JSON.stringify(signed)).not.toContain('zedquux7');

    // Nothing of the submitter is left, anywhere under DATA_DIR; the other submission is.
    for (const marker of [...MARKERS, ADDRESS])
      expect(
        holding(app.dataDir, marker).map((f) => f.slice(app.dataDir.length)),
        marker,
      ).toEqual([]);
    expect(holding(app.dataDir, KEPT)).not.toEqual([]);
    expect((await app.listSubmissions(a.id)).data.map((s) => s.id)).toEqual([kept]);
    expect((await app.api('GET', `/api/v1/forms/${b.id}/submissions/${second}`)).status).toBe(404);

    // The endpoints that received the originals hear of the erasure (ids only).
    await eventually(() => {
      const erased = receiver.received.filter((r) => JSON.parse(r.body).type === 'submission.erased');
      expect(erased.map((r) => r.url).sort()).toEqual([`/${a.id}`, `/${b.id}`].sort());
      for (const r of erased) expect(r.body.toLowerCase()).not.toContain('zedquux7');
    });

    // The receipt verifies with the instance's public key, and fails once altered.
    const keys = (await (await fetch(`${app.baseUrl}/api/v1/erasures/keys`)).json()) as ErasureKeysDto;
    expect(verifyErasureReceipt(signed, keys.keys)).toBe(true);
    const altered = structuredClone(signed);
    altered.receipt.count = 1;
    expect(verifyErasureReceipt(altered, keys.keys)).toBe(false);
    const added = { ...signed, receipt: { ...signed.receipt, note: 'x' } };
    expect(verifyErasureReceipt(added, keys.keys)).toBe(false);
    // Kept and listed; erasing again finds nothing.
    expect((await app.api('GET', `/api/v1/erasures/${signed.receipt.id}`)).body).toEqual(signed);
    const listed = (await app.api('GET', '/api/v1/erasures')).body.data as { id: string; count: number }[];
    expect(listed[0]).toMatchObject({ id: signed.receipt.id, count: 2 });
    const again = await app.api('POST', '/api/v1/erasures', { email: ADDRESS });
    expect((again.body as unknown as SignedErasureReceipt).receipt.count).toBe(0);
    const after = await app.api('POST', '/api/v1/subject-access', { email: ADDRESS });
    expect((after.body as unknown as SubjectAccessDto).submissions).toEqual([]);

    // The audit log says who asked, with the address only as its keyed hash.
    const entry = await eventually(async () => {
      const log = (await app.api('GET', '/api/v1/orgs/audit-log')).body.data as {
        type: string;
        actor: { userId: string } | null;
        data: Record<string, string>;
      }[];
      const found = log.find((e) => e.type === 'erasure.completed' && e.data.erasureId === signed.receipt.id);
      expect(found).toBeDefined();
      return found;
    });
    expect(entry?.data).toEqual({ erasureId: signed.receipt.id, addressKey: signed.receipt.addressKey, count: '2' });
    expect(entry?.actor?.userId).toBe(signed.receipt.requestedBy.id);
    expect(JSON.stringify(entry).toLowerCase()).not.toContain('zedquux7');
  });
});
