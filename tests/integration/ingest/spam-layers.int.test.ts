import { decodeEvent, encodeEvent, type SpamReason, type SpamSettingsPatch, Topics } from '@formgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp, type TestForm } from '../../harness/embedded-app.ts';
import { blobKeys, expectRejected, field, file, ingestClient, multipart } from './ingest-client.ts';

interface SubmissionDto {
  id: string;
  spam: boolean;
  spamReasons: SpamReason[];
  fields: { name: string; value: string }[];
}

const SHOP = 'https://shop.example';
const rules = (over: Partial<NonNullable<SpamSettingsPatch['rules']>>) => ({
  blockedWords: [],
  blockedDomains: [],
  maxLinks: null,
  disposableEmails: false,
  threshold: 3,
  ...over,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Issue 14's spam layers in embedded mode, through real HTTP: each layer alone, combined, shadow, org defaults. */
describe('ingest: spam layers (embedded)', () => {
  let app: TestApp;
  let client: ReturnType<typeof ingestClient>;
  beforeAll(async () => {
    app = await startTestApp();
    client = ingestClient(app);
  });
  afterAll(async () => {
    await app.stop();
  });

  const createForm = (name: string, settings: Record<string, unknown>, org?: string) =>
    app.createForm({ name, settings }, org);

  /** The submission as the API answers it (single read), once the read model has it. */
  const stored = (form: TestForm, id: string, org?: string) =>
    eventually(async () => {
      const got = await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}`, undefined, org);
      expect(got.status).toBe(200);
      return got.body as unknown as SubmissionDto;
    });
  const submit = async (form: TestForm, body: string, headers: Record<string, string> = {}, org?: string) =>
    stored(form, await client.acceptedId(await client.postForm(form.key, body, headers)), org);
  const rulesOf = (s: SubmissionDto) => s.spamReasons.map((r) => `${r.layer}/${r.rule}${r.shadow ? ' (shadow)' : ''}`);
  const timestamp = async (form: TestForm) => {
    const res = await fetch(`${app.baseUrl}/f/${form.key}/timestamp`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { field: string; value: string };
    expect(body.field).toBe('_formgate_ts');
    return body.value;
  };

  describe('allowed origins', () => {
    it('reject: another origin gets 403 BLOCKED before the body is read, and nothing is stored (files neither)', async () => {
      const form = await createForm('Origins reject', { allowedOrigins: [SHOP], spam: { origins: 'reject' } });
      await expectRejected(
        await client.postForm(form.key, 'message=hi', { origin: 'https://evil.example' }),
        403,
        'BLOCKED',
      );
      await expectRejected(
        await client.postForm(form.key, 'message=hi', { referer: 'https://evil.example/page' }),
        403,
        'BLOCKED',
      );
      const blobsBefore = blobKeys(app);
      const upload = multipart([field('message', 'hi'), file('cv', 'cv.txt', Buffer.alloc(200_000, 'a'))]);
      await expectRejected(
        await client.postMultipart(form.key, upload, { origin: 'https://evil.example' }),
        403,
        'BLOCKED',
      );
      expect(blobKeys(app)).toEqual(blobsBefore);
      // An HTML form gets the 403 as a page.
      const html = await client.post(form.key, 'message=hi', {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
      });
      expect(html.status).toBe(403);
      expect(html.headers.get('content-type')).toContain('text/html');
      // The allowed origin is accepted clean, and it is the only submission of the form.
      const ok = await submit(form, 'message=hello', { origin: SHOP });
      expect(ok).toMatchObject({ spam: false, spamReasons: [] });
      const list = await app.listSubmissions(form.id, '?limit=100');
      expect(list.data.map((s) => s.id)).toEqual([ok.id]);
    });

    it('flag: another origin is stored as spam with its reason; no header at all is flagged origin-missing', async () => {
      const form = await createForm('Origins flag', { allowedOrigins: [SHOP], spam: { origins: 'flag' } });
      const evil = await submit(form, 'message=hi', { origin: 'https://evil.example' });
      expect(evil.spam).toBe(true);
      expect(evil.spamReasons).toEqual([
        { layer: 'origin', rule: 'origin-not-allowed', detail: 'https://evil.example is not an allowed origin' },
      ]);
      expect(rulesOf(await submit(form, 'message=hi'))).toEqual(['origin/origin-missing']);
      expect((await submit(form, 'message=hi', { referer: `${SHOP}/contact` })).spam).toBe(false);
    });
  });

  describe('time-trap', () => {
    it('GET /f/{key}/timestamp: 404 for an unknown form, 405 for a POST', async () => {
      expect((await fetch(`${app.baseUrl}/f/no-such-form/timestamp`)).status).toBe(404);
      const form = await createForm('Stamp', {});
      expect((await fetch(`${app.baseUrl}/f/${form.key}/timestamp`, { method: 'POST' })).status).toBe(405);
    });

    it('flags too fast, missing and forged; passes a timestamp old enough; the field is never stored', async () => {
      const form = await createForm('Time trap', { spam: { timeTrapSeconds: 1 } });
      const stamp = await timestamp(form);
      const fast = await submit(form, `message=hi&_formgate_ts=${encodeURIComponent(stamp)}`);
      expect(rulesOf(fast)).toEqual(['time-trap/too-fast']);
      expect(fast.fields).toEqual([{ name: 'message', value: 'hi' }]);
      expect(rulesOf(await submit(form, 'message=hi'))).toEqual(['time-trap/missing']);
      const forged = `${stamp.split('.')[0]}.AAAA`;
      expect(rulesOf(await submit(form, `message=hi&_formgate_ts=${encodeURIComponent(forged)}`))).toEqual([
        'time-trap/forged',
      ]);
      const other = await createForm('Time trap 2', { spam: { timeTrapSeconds: 1 } });
      const otherStamp = await timestamp(other);
      await sleep(1_100);
      expect(rulesOf(await submit(form, `message=hi&_formgate_ts=${encodeURIComponent(otherStamp)}`))).toEqual([
        'time-trap/forged',
      ]);
      const slow = await submit(form, `message=hi&_formgate_ts=${encodeURIComponent(stamp)}`);
      expect(slow).toMatchObject({ spam: false, spamReasons: [], fields: [{ name: 'message', value: 'hi' }] });
    });
  });

  describe('content rules', () => {
    it('takes the largest rules the document allows, for a form and for the organization (no 413 below them)', async () => {
      // 500 distinct words of 100 characters and 500 domains of 253, in a script of 3 bytes per character: ~530 KB.
      const word = (i: number) => `${String(i).padStart(3, '0')}${'中'.repeat(97)}`;
      const domain = (i: number) => `${String(i).padStart(3, '0')}${'中'.repeat(250)}`;
      const largest = rules({
        blockedWords: Array.from({ length: 500 }, (_, i) => word(i)),
        blockedDomains: Array.from({ length: 500 }, (_, i) => domain(i)),
      });
      expect(Buffer.byteLength(JSON.stringify(largest))).toBeGreaterThan(500_000);
      const form = await app.api('POST', '/api/v1/forms', {
        name: 'Largest rules',
        settings: { spam: { rules: largest } },
      });
      expect(form.status).toBe(201);
      const org = await app.api('PATCH', '/api/v1/orgs/settings', { spam: { rules: largest } });
      expect(org.status).toBe(200);
      const read = await app.api('GET', '/api/v1/orgs/settings');
      expect((read.body as { spam: { rules: { blockedDomains: string[] } } }).spam.rules.blockedDomains).toHaveLength(
        500,
      );
      await app.api('PATCH', '/api/v1/orgs/settings', { spam: null });
    });

    it('flags blocked words, blocked and disposable domains and links with every hit; passes clean text', async () => {
      const form = await createForm('Rules', {
        spam: {
          rules: rules({
            blockedWords: ['casino'],
            blockedDomains: ['spam.example'],
            maxLinks: 1,
            disposableEmails: true,
          }),
        },
      });
      const hit = await submit(
        form,
        new URLSearchParams({
          message: 'Best CASINO deals http://a.example http://b.example',
          email: 'bob@mailinator.com',
          cc: 'x@mail.spam.example',
        }).toString(),
      );
      expect(hit.spam).toBe(true);
      expect(rulesOf(hit)).toEqual([
        'rules/blocked-word',
        'rules/blocked-domain',
        'rules/disposable-email',
        'rules/too-many-links',
      ]);
      expect(hit.spamReasons[0]?.detail).toContain('"casino"');
      const clean = await submit(form, 'message=casinos are fun http://a.example&email=bob@gmail.com');
      expect(clean).toMatchObject({ spam: false, spamReasons: [] });
    });
  });

  describe('combined and shadow', () => {
    it('every layer’s reasons, in order: honeypot, origin, time-trap, rules', async () => {
      const form = await createForm('Combined', {
        allowedOrigins: [SHOP],
        spam: { origins: 'flag', timeTrapSeconds: 60, rules: rules({ blockedWords: ['casino'] }) },
      });
      const all = await submit(form, 'message=casino&_gotcha=bot', { origin: 'https://evil.example' });
      expect(all.spam).toBe(true);
      expect(rulesOf(all)).toEqual([
        'honeypot/field-filled',
        'origin/origin-not-allowed',
        'time-trap/missing',
        'rules/blocked-word',
      ]);
    });

    it('shadow: a would-be block and flags are recorded with shadow: true; the submission is stored clean', async () => {
      const form = await createForm('Shadow', {
        allowedOrigins: [SHOP],
        spam: { origins: 'reject', timeTrapSeconds: 60, rules: rules({ blockedWords: ['casino'] }), shadow: true },
      });
      const shadowed = await submit(form, 'message=casino', { origin: 'https://evil.example' });
      expect(shadowed.spam).toBe(false);
      expect(rulesOf(shadowed)).toEqual([
        'origin/origin-not-allowed (shadow)',
        'time-trap/missing (shadow)',
        'rules/blocked-word (shadow)',
      ]);
      // The honeypot acts even in shadow mode.
      const honeypot = await submit(form, 'message=hi&_gotcha=bot', { origin: SHOP });
      expect(honeypot.spam).toBe(true);
      expect(rulesOf(honeypot)).toEqual(['honeypot/field-filled', 'time-trap/missing (shadow)']);
    });
  });

  describe('organization defaults', () => {
    it('apply to forms without their own setting, and a form’s own setting overrides them', async () => {
      const org = 'spam-defaults';
      const form = await createForm('Org defaults', {}, org);
      // The form's organization, as ingest learns it: from the form's record on the log.
      let orgId = '';
      const replay = await app.bus.replay(Topics.formsForm, (m) => {
        const event = decodeEvent(Topics.formsForm, m.value);
        if (event.type === 'form.upserted' && event.data.id === form.id) orgId = event.data.orgId;
      });
      await replay.stop();
      expect(orgId).not.toBe('');
      expect((await submit(form, 'message=casino', {}, org)).spam).toBe(false);

      const publish = (version: number, spam: SpamSettingsPatch | null) =>
        app.bus.publish(Topics.orgsSettings, [
          {
            key: orgId,
            value: encodeEvent(Topics.orgsSettings, {
              id: `org-settings-${orgId}-${version}`,
              type: 'org.settings-changed',
              version: 1,
              occurredAt: new Date().toISOString(),
              data: { orgId, spam, version },
            }),
          },
        ]);
      await publish(1, { rules: rules({ blockedWords: ['casino'] }) });
      await eventually(async () => {
        expect(rulesOf(await submit(form, 'message=casino', {}, org))).toEqual(['rules/blocked-word']);
      });
      // An older version arriving late changes nothing.
      await publish(1, null);
      expect(rulesOf(await submit(form, 'message=casino', {}, org))).toEqual(['rules/blocked-word']);

      // The form's own rules replace the organization's.
      const patched = await app.api(
        'PATCH',
        `/api/v1/forms/${form.id}`,
        { settings: { spam: { rules: rules({}) } } },
        org,
      );
      expect(patched.status).toBe(200);
      await eventually(async () => {
        expect(await submit(form, 'message=casino', {}, org)).toMatchObject({ spam: false, spamReasons: [] });
      });
      // Another form of the same organization still gets the defaults; another organization's form does not.
      const sibling = await createForm('Org defaults sibling', {}, org);
      expect(rulesOf(await submit(sibling, 'message=casino', {}, org))).toEqual(['rules/blocked-word']);
      const stranger = await createForm('Other org', {});
      expect((await submit(stranger, 'message=casino')).spam).toBe(false);
    });
  });
});
