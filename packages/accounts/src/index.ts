export { AccountsUnavailableError, type AdapterWrapper } from './adapter-guard.ts';
export type { ApiKeyCacheOptions } from './api-key-cache.ts';
export * from './authenticate.ts';
export * from './config.ts';
export * from './create-accounts.ts';
export { API_KEY_PREFIX, type Auth, CLIENT_IP_HEADER } from './create-auth.ts';
export * from './mailer.ts';
export type { OrganizationDirectory, OrganizationSummary } from './organization-directory.ts';
export { SITE_ORG, type SiteOrganization } from './site-org.ts';
