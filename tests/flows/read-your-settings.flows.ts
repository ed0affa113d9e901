import { randomUUID } from 'node:crypto';
import type { DeliveryDto } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BrowserSession } from '../harness/browser-session.ts';
import type { TargetRef } from './target.ts';

const ROUNDS = 100;

/**
 * Read your own settings (docs/architecture.md): once a change of a form's or an organization's settings was
 * answered 2xx, the very next submission is handled under it — by ingest (redirect, spam layers; every instance)
 * and by the notifications consumer (recipients) — however quickly it follows; a new form takes submissions, and
 * webhook endpoints, as soon as its creation is answered. Through the gateway, in both modes.
 */
export function describeReadYourSettingsFlows(target: TargetRef) {
  describe('a settings change holds for the very next submission', () => {
    let owner: BrowserSession;
    const recipients = [
      `first-${randomUUID().slice(0, 8)}@example.com`,
      `second-${randomUUID().slice(0, 8)}@example.com`,
    ];

    beforeAll(async () => {
      const { accounts } = target();
      owner = await accounts.signUp();
      await accounts.createOrg(owner, `Settings ${randomUUID().slice(0, 6)}`);
      for (const email of recipients) {
        expect((await owner.call('POST', '/api/v1/notification-emails', { email })).status).toBe(201);
        const link = new URL(await target().mailLink(email, /^Confirm /));
        const opened = await fetch(`${target().baseUrl}${link.pathname}${link.search}`, { redirect: 'manual' });
        expect(opened.status).toBe(303);
      }
    }, 120_000);

    const newForm = async (name: string) => {
      const created = await owner.call('POST', '/api/v1/forms', { name });
      expect(created.status).toBe(201);
      return created.body as { id: string; key: string };
    };
    const submit = (key: string, body: Record<string, string>, accept = 'application/json') =>
      fetch(`${target().baseUrl}/f/${key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: JSON.stringify(body),
        redirect: 'manual',
      });
    const idOf = async (res: Response) => {
      expect(res.status).toBe(200);
      return ((await res.json()) as { id: string }).id;
    };

    it(`recipients set on a new form, then a submission at once, ${ROUNDS} times: each one mailed`, async () => {
      // What a user does first: create a form, set who is told, send a test. A consumer handles a submission under
      // the version it was accepted under or a later one (the view only moves forward), so one form per round.
      const sent: { formId: string; id: string; to: string }[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const form = await newForm(`Recipients ${i}`);
        const to = recipients[i % 2] as string;
        const patch = { settings: { notifications: { emails: [to] } } };
        expect((await owner.call('PATCH', `/api/v1/forms/${form.id}`, patch)).status).toBe(200);
        sent.push({ formId: form.id, id: await idOf(await submit(form.key, { message: `round ${i}` })), to });
      }
      for (const { formId, id, to } of sent) {
        await eventually(async () => {
          const log = await owner.call('GET', `/api/v1/forms/${formId}/submissions/${id}/deliveries`);
          const targets = (log.body.data as DeliveryDto[]).map((d) => `${d.target} ${d.status}`);
          expect(targets, `submission ${id}`).toEqual([`${to} succeeded`]);
        }, target().patienceMs);
      }
    }, 300_000);

    it('a new form takes its first submission as soon as its creation is answered (no 404 from any ingest)', async () => {
      for (let i = 0; i < 20; i++) {
        const form = await newForm(`Fresh ${i}`);
        expect((await submit(form.key, { message: 'first' })).status).toBe(200);
      }
    }, 120_000);

    it('a webhook endpoint added right after its form is created: accepted at once (no 404 from a lagging view)', async () => {
      for (let i = 0; i < 20; i++) {
        const form = await newForm(`Hooked ${i}`);
        const endpoint = {
          url: 'https://hooks.example.com/formgate',
          kind: 'standard',
          events: ['submission.created'],
        };
        const created = await owner.call('POST', `/api/v1/forms/${form.id}/webhooks`, endpoint);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
      }
    }, 120_000);

    it('a redirect changed, then an HTML form post at once: redirected where the change says, every time', async () => {
      const form = await newForm('Redirects');
      for (let i = 0; i < 30; i++) {
        const redirectUrl = `https://example.com/thanks/${i}`;
        expect((await owner.call('PATCH', `/api/v1/forms/${form.id}`, { settings: { redirectUrl } })).status).toBe(200);
        const res = await submit(form.key, { message: `round ${i}` }, 'text/html');
        expect([res.status, res.headers.get('location')]).toEqual([303, redirectUrl]);
      }
    }, 120_000);

    it('an organization’s spam rule added, then a submission at once: flagged under it, every time', async () => {
      const form = await newForm('Organization rules');
      for (let i = 0; i < 20; i++) {
        const word = `forbidden${i}`;
        const rules = {
          blockedWords: [word],
          blockedDomains: [],
          maxLinks: null,
          disposableEmails: false,
          threshold: 1,
        };
        expect((await owner.call('PATCH', '/api/v1/orgs/settings', { spam: { rules } })).status).toBe(200);
        const id = await idOf(await submit(form.key, { message: `a ${word} word` }));
        await eventually(async () => {
          const listed = await owner.call('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
          expect(listed.body.spam, `round ${i}`).toBe(true);
        }, target().patienceMs);
      }
    }, 120_000);
  });
}
