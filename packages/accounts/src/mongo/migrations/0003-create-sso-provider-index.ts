import type { MongoMigration } from '@formgate/store/mongo';

/**
 * `ssoProvider` (better-auth's SSO plugin): organizationId, the organization's provider, read by the sign-in policy
 * when an organization requires single sign-on, by provider registration (one per organization) and before a
 * removal. better-auth's adapter already indexes providerId (unique).
 */
export const createSsoProviderIndex: MongoMigration = {
  version: 3,
  name: 'create the sso provider organization index',
  async up(db) {
    await db.collection('ssoProvider').createIndex({ organizationId: 1 });
  },
};
