import { randomUUID } from 'node:crypto';
import { authorize } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BrowserSession } from '../harness/browser-session.ts';
import type { TargetRef } from './target.ts';

/**
 * The dashboard's forms API (issue 11): deleting forms, deleting and marking submissions one by one and in bulk,
 * counters and daily stats, and the errors of hostile input; through the gateway, in both modes.
 */
export function describeSubmissionManagementFlows(target: TargetRef) {
  describe('managing forms and submissions through the gateway', () => {
    let owner: BrowserSession;
    let member: BrowserSession;

    beforeAll(async () => {
      const { accounts } = target();
      owner = await accounts.signUp();
      const org = await accounts.createOrg(owner, `Manage ${randomUUID().slice(0, 6)}`);
      member = await accounts.addMember(owner, org, 'member');
    }, 120_000);

    const newForm = async (name = 'Contact') => {
      const created = await owner.call('POST', '/api/v1/forms', { name });
      expect(created.status).toBe(201);
      await target().waitForForm(created.body.key);
      return created.body as { id: string; key: string };
    };
    const submit = async (key: string, fields: Record<string, string>) => {
      const res = await fetch(`${target().baseUrl}/f/${key}`, {
        method: 'POST',
        headers: { accept: 'application/json' },
        body: new URLSearchParams(fields),
      });
      return { status: res.status, body: (await res.json()) as { id: string; errors: { code: string }[] } };
    };
    /** Submits each, the ones with `spam` through the honeypot; resolves with their ids once all are listed. */
    const seed = async (key: string, formId: string, spam: boolean[]) => {
      const ids: string[] = [];
      for (const [i, isSpam] of spam.entries()) {
        const reply = await submit(key, { n: String(i), ...(isSpam ? { _gotcha: 'bot' } : {}) });
        expect(reply.status).toBe(200);
        ids.push(reply.body.id);
      }
      await eventually(async () => {
        const list = await owner.call('GET', `/api/v1/forms/${formId}/submissions`);
        expect(list.body.data).toHaveLength(spam.length);
      }, target().patienceMs);
      return ids;
    };
    const detail = async (formId: string) => (await owner.call('GET', `/api/v1/forms/${formId}`)).body;
    /** Counters follow changes once their events are counted (at once embedded, through the log distributed). */
    const countsBecome = (formId: string, counts: { submissionCount: number; spamCount: number }) =>
      eventually(async () => expect(await detail(formId)).toMatchObject(counts), target().patienceMs);
    const today = () => new Date().toISOString().slice(0, 10);

    it('counts submissions and spam on the form, marks them spam / not spam, deletes them, with stats per day', async () => {
      const form = await newForm();
      const [a, b, c] = (await seed(form.key, form.id, [false, true, false])) as [string, string, string];
      const before = await detail(form.id);
      expect(before).toMatchObject({ submissionCount: 3, spamCount: 1 });
      expect(Date.parse(before.lastSubmissionAt)).toBeGreaterThan(Date.now() - 120_000);
      const listed = (await owner.call('GET', '/api/v1/forms')).body.data.find((f: { id: string }) => f.id === form.id);
      expect(listed).toMatchObject({ submissionCount: 3, spamCount: 1, lastSubmissionAt: before.lastSubmissionAt });

      const marked = await owner.call('PATCH', `/api/v1/forms/${form.id}/submissions/${b}`, { spam: false });
      expect(marked.status).toBe(200);
      expect(marked.body).toMatchObject({ id: b, spam: false });
      expect((await owner.call('PATCH', `/api/v1/forms/${form.id}/submissions/${b}`, { spam: false })).status).toBe(
        200,
      );
      await countsBecome(form.id, { submissionCount: 3, spamCount: 0 });

      const bulk = await owner.call('POST', `/api/v1/forms/${form.id}/submissions/bulk`, {
        action: 'spam',
        ids: [a, b, 'no-such-submission'],
      });
      expect(bulk.status).toBe(200);
      expect(bulk.body).toEqual({
        action: 'spam',
        data: [
          { id: a, result: 'changed' },
          { id: b, result: 'changed' },
          { id: 'no-such-submission', result: 'not_found' },
        ],
      });
      await countsBecome(form.id, { submissionCount: 3, spamCount: 2 });

      expect((await owner.call('DELETE', `/api/v1/forms/${form.id}/submissions/${a}`)).status).toBe(204);
      const again = await owner.call('DELETE', `/api/v1/forms/${form.id}/submissions/${a}`);
      expect(again.status).toBe(404);
      expect(again.body.error.code).toBe('FORMS_SUBMISSION_NOT_FOUND');
      expect((await owner.call('GET', `/api/v1/forms/${form.id}/submissions/${a}`)).status).toBe(404);
      const remaining = (await owner.call('GET', `/api/v1/forms/${form.id}/submissions`)).body.data;
      expect(remaining.map((s: { id: string }) => s.id).sort()).toEqual([b, c].sort());
      await countsBecome(form.id, { submissionCount: 2, spamCount: 1 });

      const removed = await owner.call('POST', `/api/v1/forms/${form.id}/submissions/bulk`, {
        action: 'delete',
        ids: [b, c],
      });
      expect(removed.body.data.map((r: { result: string }) => r.result)).toEqual(['changed', 'changed']);
      await countsBecome(form.id, { submissionCount: 0, spamCount: 0 });

      const [d] = (await seed(form.key, form.id, [true])) as [string];
      expect(d).toBeTruthy();
      await countsBecome(form.id, { submissionCount: 1, spamCount: 1 });
      const stats = await owner.call('GET', `/api/v1/forms/${form.id}/stats?days=7`);
      expect(stats.status).toBe(200);
      expect(stats.body.data).toHaveLength(7);
      expect(stats.body.data.at(-1)).toEqual({ day: today(), total: 1, spam: 1, blocked: 0 });
      expect(stats.body.data.slice(0, 6).every((x: { total: number }) => x.total === 0)).toBe(true);
      expect((await owner.call('GET', `/api/v1/forms/${form.id}/stats`)).body.data).toHaveLength(30);
    });

    it('records the submitting page’s Origin and Referer through the gateway, dropping a hostile one', async () => {
      const form = await newForm('Source');
      const post = async (headers: Record<string, string>) => {
        const res = await fetch(`${target().baseUrl}/f/${form.key}`, {
          method: 'POST',
          headers: { accept: 'application/json', ...headers },
          body: new URLSearchParams({ message: 'hi' }),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { id: string }).id;
      };
      const kept = await post({ origin: 'https://shop.example', referer: 'https://shop.example/contact?x=1#top' });
      const hostile = await post({ origin: 'javascript:alert(1)', referer: 'javascript:alert(1)' });
      const sourceOf = async (id: string) =>
        eventually(async () => {
          const res = await owner.call('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
          expect(res.status).toBe(200);
          return { origin: res.body.origin, referer: res.body.referer };
        }, target().patienceMs);
      expect(await sourceOf(kept)).toEqual({
        origin: 'https://shop.example',
        referer: 'https://shop.example/contact?x=1',
      });
      expect(await sourceOf(hostile)).toEqual({ origin: null, referer: null });
    });

    it('lets a member read but not change submissions, nor delete the form', async () => {
      const form = await newForm();
      const [a] = (await seed(form.key, form.id, [false])) as [string];
      const denied = [
        await member.call('PATCH', `/api/v1/forms/${form.id}/submissions/${a}`, { spam: true }),
        await member.call('DELETE', `/api/v1/forms/${form.id}/submissions/${a}`),
        await member.call('POST', `/api/v1/forms/${form.id}/submissions/bulk`, { action: 'delete', ids: [a] }),
      ];
      for (const reply of denied) {
        expect(reply.status).toBe(403);
        expect(reply.body.error.message).toBe(authorize(['member'], { form: ['update'] }).error);
      }
      const noDelete = await member.call('DELETE', `/api/v1/forms/${form.id}`);
      expect(noDelete.status).toBe(403);
      expect(noDelete.body.error.message).toBe(authorize(['member'], { form: ['delete'] }).error);
      expect((await member.call('GET', `/api/v1/forms/${form.id}/stats`)).status).toBe(200);
      await countsBecome(form.id, { submissionCount: 1, spamCount: 0 });
    });

    it('deletes a form: gone from the API at once, its key answers 410 FORM_DELETED, a second delete 404', async () => {
      const form = await newForm('Doomed');
      await seed(form.key, form.id, [false, false]);
      expect((await owner.call('DELETE', `/api/v1/forms/${form.id}`)).status).toBe(204);
      expect((await owner.call('GET', `/api/v1/forms/${form.id}`)).status).toBe(404);
      expect((await owner.call('GET', `/api/v1/forms/${form.id}/submissions`)).status).toBe(404);
      const ids = (await owner.call('GET', '/api/v1/forms')).body.data.map((f: { id: string }) => f.id);
      expect(ids).not.toContain(form.id);
      const again = await owner.call('DELETE', `/api/v1/forms/${form.id}`);
      expect(again.status).toBe(404);
      expect(again.body.error.code).toBe('FORMS_FORM_NOT_FOUND');
      await eventually(async () => {
        const reply = await submit(form.key, { late: '1' });
        expect(reply.status).toBe(410);
        expect(reply.body.errors[0]?.code).toBe('FORM_DELETED');
      }, target().patienceMs);
    });

    it('answers hostile input with a documented 4xx, never a 500', async () => {
      const form = await newForm();
      const [a] = (await seed(form.key, form.id, [false])) as [string];
      const base = `/api/v1/forms/${form.id}`;
      const cases: [string, string, unknown, number, string][] = [
        [
          'POST',
          `${base}/submissions/bulk`,
          { action: 'delete', ids: Array.from({ length: 101 }, (_, i) => `s${i}`) },
          400,
          'VALIDATION_FAILED',
        ],
        ['POST', `${base}/submissions/bulk`, { action: 'delete', ids: [] }, 400, 'VALIDATION_FAILED'],
        ['POST', `${base}/submissions/bulk`, { action: 'delete', ids: [a, a] }, 400, 'VALIDATION_FAILED'],
        ['POST', `${base}/submissions/bulk`, { action: 'nuke', ids: [a] }, 400, 'VALIDATION_FAILED'],
        ['POST', `${base}/submissions/bulk`, { action: 'delete', ids: a }, 400, 'VALIDATION_FAILED'],
        ['POST', `${base}/submissions/bulk`, { action: 'delete', ids: [{ $ne: null }] }, 400, 'VALIDATION_FAILED'],
        ['POST', `${base}/submissions/bulk`, { action: 'delete', ids: ['x'.repeat(101)] }, 400, 'VALIDATION_FAILED'],
        ['POST', `${base}/submissions/bulk`, [a], 400, 'VALIDATION_FAILED'],
        ['PATCH', `${base}/submissions/${a}`, { spam: 'yes' }, 400, 'VALIDATION_FAILED'],
        ['PATCH', `${base}/submissions/${a}`, { spam: true, fields: [] }, 400, 'VALIDATION_FAILED'],
        ['PATCH', `${base}/submissions/${a}`, {}, 400, 'VALIDATION_FAILED'],
        ['GET', `${base}/stats?days=0`, undefined, 400, 'VALIDATION_FAILED'],
        ['GET', `${base}/stats?days=366`, undefined, 400, 'VALIDATION_FAILED'],
        ['GET', `${base}/stats?days=ten`, undefined, 400, 'VALIDATION_FAILED'],
        ['GET', `${base}/stats?days=1&days=2`, undefined, 400, 'VALIDATION_FAILED'],
        ['DELETE', `${base}/submissions/${'%24where'.repeat(40)}`, undefined, 404, 'FORMS_SUBMISSION_NOT_FOUND'],
        ['DELETE', `/api/v1/forms/${encodeURIComponent('{"$gt":""}')}`, undefined, 404, 'FORMS_FORM_NOT_FOUND'],
        ['DELETE', `${base}/submissions/%E0%A4%A`, undefined, 400, 'MALFORMED_PATH'],
      ];
      for (const [method, path, body, status, code] of cases) {
        const reply = await owner.call(method, path, body);
        expect([method, path.slice(0, 80), reply.status, reply.body?.error?.code]).toEqual([
          method,
          path.slice(0, 80),
          status,
          code,
        ]);
      }
      const res = await fetch(`${target().baseUrl}${base}/submissions/bulk`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          cookie: cookieOf(owner),
          origin: target().baseUrl,
        },
        body: '{"action": "delete", "ids": [',
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('MALFORMED_JSON');
      expect((await detail(form.id)).submissionCount).toBe(1);
    });
  });
}

const cookieOf = (session: BrowserSession) => [...session.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
