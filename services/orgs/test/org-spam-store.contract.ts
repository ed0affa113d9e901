import { describeContract } from '@formgate/kit/testing';
import { expect } from 'vitest';
import { DEFAULT_ORG_SETTINGS } from '../src/store/records.ts';
import { purgeOrganization } from '../src/use-cases/purge-organization.ts';
import { type OrgsStoresTarget, org, useOrgsStores } from './orgs-fixtures.ts';

/** The guarantees of `OrgSpamStore` (see its JSDoc), checked against one adapter. */
export function runOrgSpamStoreContract(target: OrgsStoresTarget) {
  describeContract(`OrgSpamStore contract: ${target.name}`, target.skip, (it) => {
    const stores = useOrgsStores(target);

    it('versions the spam defaults, replaces them only from the version read, and keeps an outbox of them', async () => {
      const a = org();
      await stores.orgs.createOrganization(a, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
      expect(await stores.spam.getSpamSettings(a)).toEqual({ orgId: a.orgId, spam: null, version: 0 });
      expect(await stores.spam.getSpamSettings(org())).toBeNull();
      const spam = {
        timeTrapSeconds: 3,
        captcha: { provider: 'turnstile' as const, secret: 's3cret', minScore: null, onFailure: 'reject' as const },
      };
      expect(await stores.spam.replaceSpamSettings(a, spam, 0)).toBe(true);
      expect(await stores.spam.replaceSpamSettings(a, { shadow: true }, 0)).toBe(false);
      expect(await stores.spam.replaceSpamSettings(org(), spam, 0)).toBe(false);
      expect(await stores.spam.getSpamSettings(a)).toEqual({ orgId: a.orgId, spam, version: 1 });
      const mine = async () =>
        (await stores.spam.listUnpublishedSpamSettings(100_000)).filter((s) => s.orgId === a.orgId);
      expect(await mine()).toEqual([{ orgId: a.orgId, spam, version: 1 }]);
      expect(await stores.spam.replaceSpamSettings(a, null, 1)).toBe(true);
      // A mark of the older version hides nothing newer.
      await stores.spam.markSpamSettingsPublished(a.orgId, 1);
      expect(await mine()).toEqual([{ orgId: a.orgId, spam: null, version: 2 }]);
      await stores.spam.markSpamSettingsPublished(a.orgId, 2);
      expect(await mine()).toEqual([]);
      await purgeOrganization(stores, a);
      expect(await stores.spam.getSpamSettings(a)).toBeNull();
      expect(await stores.spam.replaceSpamSettings(a, spam, 2)).toBe(false);
    });

    it('lets exactly one of two spam changes from the same version win', async () => {
      const a = org();
      await stores.orgs.createOrganization(a, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
      for (let v = 0; v < 6; v++) {
        const won = await Promise.all([1, 2].map((n) => stores.spam.replaceSpamSettings(a, { timeTrapSeconds: n }, v)));
        expect(won.filter(Boolean)).toHaveLength(1);
        expect(await stores.spam.getSpamSettings(a)).toEqual({
          orgId: a.orgId,
          spam: { timeTrapSeconds: won[0] ? 1 : 2 },
          version: v + 1,
        });
      }
    });

    it('refuses the spam defaults of an organization being purged, and lists none of it', async () => {
      const a = org();
      await stores.orgs.createOrganization(a, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
      expect(await stores.spam.replaceSpamSettings(a, { shadow: true }, 0)).toBe(true);
      await stores.orgs.beginPurge(a);
      expect(await stores.spam.getSpamSettings(a)).toBeNull();
      expect(await stores.spam.replaceSpamSettings(a, null, 1)).toBe(false);
      const listed = await stores.spam.listUnpublishedSpamSettings(100_000);
      expect(listed.filter((x) => x.orgId === a.orgId)).toEqual([]);
    });
  });
}
