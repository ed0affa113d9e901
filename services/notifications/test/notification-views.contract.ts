import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM_NOTIFICATIONS } from '@formgate/contracts';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { beforeAll, expect } from 'vitest';
import type { FormView, NotificationViews, StoredSubmission } from '../src/store/index.ts';

const T0 = '2026-11-20T10:00:00.000Z';

const form = (over: Partial<FormView> = {}): FormView => ({
  id: `form_${randomUUID()}`,
  orgId: `org_${randomUUID()}`,
  name: 'Contact',
  slug: 'contact',
  notifications: { ...DEFAULT_FORM_NOTIFICATIONS, emails: ['a@example.com'] },
  version: 1,
  ...over,
});

export const submission = (over: Partial<StoredSubmission> = {}): StoredSubmission => ({
  submissionId: randomUUID(),
  formId: 'form-1',
  orgId: 'org-1',
  receivedAt: T0,
  fields: [{ name: 'message', value: '<script>alert(1)</script>' }],
  files: [],
  meta: {},
  spam: { isSpam: false, reasons: [] },
  held: false,
  ...over,
});

/** The guarantees of `NotificationViews` (see its JSDoc), checked against one adapter. */
export function runNotificationViewsContract(target: {
  name: string;
  skip?: ContractSkip[];
  create: () => Promise<{ views: NotificationViews }>;
}) {
  describeContract(`NotificationViews contract: ${target.name}`, target.skip, (it) => {
    let stores: { views: NotificationViews };
    beforeAll(async () => {
      stores = await target.create();
    });

    it('keeps the highest version of a form and forgets a deleted one for good', async () => {
      const f = form({ version: 2 });
      const scope = { orgId: f.orgId };
      await stores.views.applyForm(f);
      await stores.views.applyForm({ ...f, name: 'Older', version: 1 });
      await stores.views.applyForm({ ...f, name: 'Same', version: 2 });
      expect(await stores.views.getForm(scope, f.id)).toEqual(f);
      expect(await stores.views.getFormUnscoped(f.id)).toEqual(f);
      const newer = { ...f, name: 'Newer', version: 3 };
      await stores.views.applyForm(newer);
      expect(await stores.views.getForm(scope, f.id)).toEqual(newer);

      await stores.views.deleteForm(f.id, 4);
      expect(await stores.views.getFormUnscoped(f.id)).toBe('deleted');
      expect(await stores.views.getForm(scope, f.id)).toBeNull();
      await stores.views.applyForm({ ...f, version: 3 });
      expect(await stores.views.getFormUnscoped(f.id)).toBe('deleted');
      expect(await stores.views.getForm(scope, f.id)).toBeNull();
      expect(await stores.views.getFormUnscoped(`form_${randomUUID()}`)).toBeNull();
      expect(await stores.views.getForm(scope, `form_${randomUUID()}`)).toBeNull();
    });

    it("reads another organization's form as absent", async () => {
      const f = form();
      await stores.views.applyForm(f);
      expect(await stores.views.getForm({ orgId: `org_${randomUUID()}` }, f.id)).toBeNull();
      expect(await stores.views.getForm({ orgId: f.orgId }, f.id)).toEqual(f);
    });

    it('keeps the first copy of a submission and forgets a deleted one', async () => {
      const s = submission();
      const scope = { orgId: s.orgId };
      await stores.views.saveSubmissions([s]);
      await stores.views.saveSubmissions([{ ...s, fields: [] }]);
      expect(await stores.views.getSubmission(scope, s.submissionId)).toEqual(s);
      await stores.views.deleteSubmission(s.submissionId);
      expect(await stores.views.getSubmission(scope, s.submissionId)).toBeNull();
    });

    it("reads another organization's submission as absent", async () => {
      const s = submission({ orgId: `org_${randomUUID()}` });
      await stores.views.saveSubmissions([s]);
      expect(await stores.views.getSubmission({ orgId: `org_${randomUUID()}` }, s.submissionId)).toBeNull();
      expect(await stores.views.getSubmission({ orgId: s.orgId }, s.submissionId)).toEqual(s);
    });

    it('keeps the first copy of many submissions saved at once, whichever were there already', async () => {
      const old = submission();
      await stores.views.saveSubmissions([old]);
      const fresh = [submission(), submission()];
      await stores.views.saveSubmissions([
        { ...old, fields: [] },
        fresh[0] as StoredSubmission,
        { ...(fresh[0] as StoredSubmission), fields: [] },
        fresh[1] as StoredSubmission,
      ]);
      const scope = { orgId: old.orgId };
      expect(await stores.views.getSubmission(scope, old.submissionId)).toEqual(old);
      expect(await stores.views.getSubmission(scope, fresh[0]?.submissionId ?? '')).toEqual(fresh[0]);
      expect(await stores.views.getSubmission(scope, fresh[1]?.submissionId ?? '')).toEqual(fresh[1]);
      await stores.views.saveSubmissions([]);
    });
  });
}
