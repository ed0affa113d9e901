import { randomUUID } from 'node:crypto';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import { type AuditEntry, DEFAULT_ORG_SETTINGS, type OrgsStore } from '../src/store/orgs-store.ts';

export interface OrgsStoreTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  create: () => Promise<OrgsStore>;
}

const org = () => ({ orgId: `org_${randomUUID()}` });

const entry = (occurredAt: string, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  id: randomUUID(),
  type: 'member.added',
  actor: { userId: 'u1', email: 'owner@example.com' },
  occurredAt,
  data: { memberId: 'm1', userId: 'u2', role: 'member' },
  ...overrides,
});

/** The guarantees of `OrgsStore` (see its JSDoc), checked against one adapter. */
export function runOrgsStoreContract(target: OrgsStoreTarget) {
  describeContract(`OrgsStore contract: ${target.name}`, target.skip, (it) => {
    let store: OrgsStore;
    beforeAll(async () => {
      store = await target.create();
    });
    afterAll(async () => {
      await store.close();
    });

    it('creates an organization with its settings, readable only in its own scope', async () => {
      const a = org();
      await store.createOrganization(a, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
      expect(await store.getOrganization(a)).toEqual({ orgId: a.orgId, name: 'Acme', slug: 'acme', deleted: false });
      expect(await store.getSettings(a)).toEqual({ submission_notification_email: null, email_management: false });
      expect(await store.getOrganization(org())).toBeNull();
      expect(await store.getSettings(org())).toBeNull();
    });

    it('leaves a known organization and its settings alone when it is created again', async () => {
      const a = org();
      await store.createOrganization(a, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
      await store.updateSettings(a, { email_management: true });
      await store.createOrganization(a, { name: 'Other', slug: 'other' }, DEFAULT_ORG_SETTINGS);
      expect(await store.getOrganization(a)).toMatchObject({ name: 'Acme', slug: 'acme' });
      expect(await store.getSettings(a)).toEqual({ submission_notification_email: null, email_management: true });
    });

    it('renames a known organization and creates nothing for an unknown one', async () => {
      const a = org();
      const unknown = org();
      await store.createOrganization(a, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
      await store.updateOrganization(a, { name: 'Acme Inc', slug: 'acme-inc' });
      await store.updateOrganization(unknown, { name: 'Ghost', slug: 'ghost' });
      expect(await store.getOrganization(a)).toMatchObject({ name: 'Acme Inc', slug: 'acme-inc' });
      expect(await store.getOrganization(unknown)).toBeNull();
    });

    it('sets only the keys given, in the organization’s scope; an unknown organization gets null', async () => {
      const a = org();
      const b = org();
      await store.createOrganization(a, { name: 'A', slug: 'a' }, DEFAULT_ORG_SETTINGS);
      await store.createOrganization(b, { name: 'B', slug: 'b' }, DEFAULT_ORG_SETTINGS);
      const email = 'alerts@example.com';
      expect(await store.updateSettings(a, { submission_notification_email: email })).toEqual({
        submission_notification_email: email,
        email_management: false,
      });
      expect(await store.updateSettings(a, { email_management: true })).toEqual({
        submission_notification_email: email,
        email_management: true,
      });
      expect(await store.updateSettings(a, {})).toEqual({
        submission_notification_email: email,
        email_management: true,
      });
      expect(await store.updateSettings(a, { submission_notification_email: null })).toEqual({
        submission_notification_email: null,
        email_management: true,
      });
      expect(await store.getSettings(b)).toEqual(DEFAULT_ORG_SETTINGS);
      const unknown = org();
      expect(await store.updateSettings(unknown, { email_management: true })).toBeNull();
      expect(await store.getOrganization(unknown)).toBeNull();
    });

    it('appends an audit entry once per id and returns it as stored', async () => {
      const a = org();
      const e = entry('2026-05-01T10:00:00.000Z');
      const system = entry('2026-05-01T11:00:00.000Z', { type: 'invitation.canceled', actor: null, data: {} });
      expect(await store.appendAudit(a, e)).toBe(true);
      expect(await store.appendAudit(a, e)).toBe(false);
      expect(await store.appendAudit(a, system)).toBe(true);
      expect(await store.listAudit(a, { limit: 10 })).toEqual([system, e]);
      expect(await store.listAudit(org(), { limit: 10 })).toEqual([]);
    });

    it('pages the audit log newest first with a keyset cursor, ties broken by id', async () => {
      const a = org();
      const same = '2026-02-01T00:00:00.000Z';
      const entries = [
        ...Array.from({ length: 5 }, () => entry(same)),
        entry('2026-03-01T00:00:00.000Z'),
        entry('2026-01-01T00:00:00.000Z'),
      ];
      for (const e of entries) await store.appendAudit(a, e);
      await store.appendAudit(org(), entry(same));
      const expected = [...entries]
        .sort((x, y) => (x.occurredAt === y.occurredAt ? (x.id < y.id ? 1 : -1) : x.occurredAt < y.occurredAt ? 1 : -1))
        .map((e) => e.id);
      const seen: string[] = [];
      let after: { occurredAt: string; id: string } | undefined;
      for (let i = 0; i < 4; i++) {
        const page = await store.listAudit(a, { limit: 2, ...(after ? { after } : {}) });
        seen.push(...page.map((e) => e.id));
        const last = page.at(-1);
        after = last ? { occurredAt: last.occurredAt, id: last.id } : undefined;
      }
      expect(seen).toEqual(expected);
    });

    it('purges everything of one organization, and only of that one, idempotently', async () => {
      const a = org();
      const b = org();
      for (const scope of [a, b]) {
        await store.createOrganization(scope, { name: 'X', slug: 'x' }, DEFAULT_ORG_SETTINGS);
        await store.appendAudit(scope, entry('2026-05-01T10:00:00.000Z'));
      }
      await store.purge(a);
      await store.purge(a);
      await store.purge(org());
      expect(await store.getOrganization(a)).toBeNull();
      expect(await store.getSettings(a)).toBeNull();
      expect(await store.updateSettings(a, { email_management: true })).toBeNull();
      expect(await store.listAudit(a, { limit: 10 })).toEqual([]);
      expect(await store.getOrganization(b)).toMatchObject({ deleted: false });
      expect(await store.listAudit(b, { limit: 10 })).toHaveLength(1);
    });

    it('versions the spam defaults, replaces them only from the version read, and keeps an outbox of them', async () => {
      const a = org();
      await store.createOrganization(a, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
      expect(await store.getSpamSettings(a)).toEqual({ orgId: a.orgId, spam: null, version: 0 });
      expect(await store.getSpamSettings(org())).toBeNull();
      const spam = {
        timeTrapSeconds: 3,
        captcha: { provider: 'turnstile' as const, secret: 's3cret', minScore: null, onFailure: 'reject' as const },
      };
      expect(await store.replaceSpamSettings(a, spam, 0)).toBe(true);
      expect(await store.replaceSpamSettings(a, { shadow: true }, 0)).toBe(false);
      expect(await store.replaceSpamSettings(org(), spam, 0)).toBe(false);
      expect(await store.getSpamSettings(a)).toEqual({ orgId: a.orgId, spam, version: 1 });
      const mine = async () => (await store.listUnpublishedSpamSettings(100_000)).filter((s) => s.orgId === a.orgId);
      expect(await mine()).toEqual([{ orgId: a.orgId, spam, version: 1 }]);
      expect(await store.replaceSpamSettings(a, null, 1)).toBe(true);
      // A mark of the older version hides nothing newer.
      await store.markSpamSettingsPublished(a.orgId, 1);
      expect(await mine()).toEqual([{ orgId: a.orgId, spam: null, version: 2 }]);
      await store.markSpamSettingsPublished(a.orgId, 2);
      expect(await mine()).toEqual([]);
      await store.purge(a);
      expect(await store.getSpamSettings(a)).toBeNull();
      expect(await store.replaceSpamSettings(a, spam, 2)).toBe(false);
    });

    it('lets exactly one of two spam changes from the same version win', async () => {
      const a = org();
      await store.createOrganization(a, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
      for (let v = 0; v < 6; v++) {
        const won = await Promise.all([1, 2].map((n) => store.replaceSpamSettings(a, { timeTrapSeconds: n }, v)));
        expect(won.filter(Boolean)).toHaveLength(1);
        expect(await store.getSpamSettings(a)).toEqual({
          orgId: a.orgId,
          spam: { timeTrapSeconds: won[0] ? 1 : 2 },
          version: v + 1,
        });
      }
    });
  });
}
