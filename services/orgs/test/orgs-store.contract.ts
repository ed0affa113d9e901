import { describeContract } from '@formgate/kit/testing';
import { expect } from 'vitest';
import { DEFAULT_ORG_SETTINGS } from '../src/store/records.ts';
import { purgeOrganization } from '../src/use-cases/purge-organization.ts';
import { entry, type OrgsStoresTarget, org, useOrgsStores } from './orgs-fixtures.ts';

/** The guarantees of `OrgsStore` (see its JSDoc), checked against one adapter; purges run every port's step. */
export function runOrgsStoreContract(target: OrgsStoresTarget) {
  describeContract(`OrgsStore contract: ${target.name}`, target.skip, (it) => {
    const stores = useOrgsStores(target);

    it('creates an organization with its settings, readable only in its own scope', async () => {
      const a = org();
      await stores.orgs.createOrganization(a, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
      expect(await stores.orgs.getOrganization(a)).toEqual({
        orgId: a.orgId,
        name: 'Acme',
        slug: 'acme',
        deleted: false,
      });
      expect(await stores.orgs.getSettings(a)).toEqual({
        submission_notification_email: null,
        email_management: false,
      });
      expect(await stores.orgs.getOrganization(org())).toBeNull();
      expect(await stores.orgs.getSettings(org())).toBeNull();
    });

    it('leaves a known organization and its settings alone when it is created again', async () => {
      const a = org();
      await stores.orgs.createOrganization(a, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
      await stores.orgs.updateSettings(a, { email_management: true });
      await stores.orgs.createOrganization(a, { name: 'Other', slug: 'other' }, DEFAULT_ORG_SETTINGS);
      expect(await stores.orgs.getOrganization(a)).toMatchObject({ name: 'Acme', slug: 'acme' });
      expect(await stores.orgs.getSettings(a)).toEqual({ submission_notification_email: null, email_management: true });
    });

    it('renames a known organization and creates nothing for an unknown one', async () => {
      const a = org();
      const unknown = org();
      await stores.orgs.createOrganization(a, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
      await stores.orgs.updateOrganization(a, { name: 'Acme Inc', slug: 'acme-inc' });
      await stores.orgs.updateOrganization(unknown, { name: 'Ghost', slug: 'ghost' });
      expect(await stores.orgs.getOrganization(a)).toMatchObject({ name: 'Acme Inc', slug: 'acme-inc' });
      expect(await stores.orgs.getOrganization(unknown)).toBeNull();
    });

    it('sets only the keys given, in the organization’s scope; an unknown organization gets null', async () => {
      const a = org();
      const b = org();
      await stores.orgs.createOrganization(a, { name: 'A', slug: 'a' }, DEFAULT_ORG_SETTINGS);
      await stores.orgs.createOrganization(b, { name: 'B', slug: 'b' }, DEFAULT_ORG_SETTINGS);
      const email = 'alerts@example.com';
      expect(await stores.orgs.updateSettings(a, { submission_notification_email: email })).toEqual({
        submission_notification_email: email,
        email_management: false,
      });
      expect(await stores.orgs.updateSettings(a, { email_management: true })).toEqual({
        submission_notification_email: email,
        email_management: true,
      });
      expect(await stores.orgs.updateSettings(a, {})).toEqual({
        submission_notification_email: email,
        email_management: true,
      });
      expect(await stores.orgs.updateSettings(a, { submission_notification_email: null })).toEqual({
        submission_notification_email: null,
        email_management: true,
      });
      expect(await stores.orgs.getSettings(b)).toEqual(DEFAULT_ORG_SETTINGS);
      const unknown = org();
      expect(await stores.orgs.updateSettings(unknown, { email_management: true })).toBeNull();
      expect(await stores.orgs.getOrganization(unknown)).toBeNull();
    });

    it('purges everything of one organization, and only of that one, idempotently', async () => {
      const a = org();
      const b = org();
      for (const scope of [a, b]) {
        await stores.orgs.createOrganization(scope, { name: 'X', slug: 'x' }, DEFAULT_ORG_SETTINGS);
        await stores.audit.appendAudit(scope, entry('2026-05-01T10:00:00.000Z'));
      }
      await purgeOrganization(stores, a);
      await purgeOrganization(stores, a);
      await purgeOrganization(stores, org());
      expect(await stores.orgs.getOrganization(a)).toBeNull();
      expect(await stores.orgs.getSettings(a)).toBeNull();
      expect(await stores.orgs.updateSettings(a, { email_management: true })).toBeNull();
      expect(await stores.audit.listAudit(a, { limit: 10 })).toEqual([]);
      expect(await stores.orgs.getOrganization(b)).toMatchObject({ deleted: false });
      expect(await stores.audit.listAudit(b, { limit: 10 })).toHaveLength(1);
    });
  });
}
