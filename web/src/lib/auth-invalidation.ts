import type { QueryKey } from '@tanstack/react-query';

export const sessionKey = ['session'] as const;
export const organizationListKey = ['organization', 'list'] as const;
export const activeOrganizationKey = ['organization', 'active'] as const;
export const activeMemberKey = ['organization', 'active-member'] as const;

const SESSION_PATHS = [
  '/sign-out',
  '/update-user',
  '/delete-user',
  '/verify-email',
  '/organization/set-active',
  '/two-factor/verify-totp',
  '/two-factor/verify-backup-code',
  '/two-factor/disable',
  '/passkey/verify-authentication',
];
const ORG_LIST_PATHS = ['/organization/create', '/organization/delete', '/organization/update'];
/**
 * Organization reads (`list`, `get-full-organization`, `get-active-member`, `list-teams`, `list-invitations`, …)
 * refresh nothing: a read that invalidated the query it is answering would wait on itself forever.
 */
const isOrganizationRead = (path: string) => /^\/organization\/(list|get-)/.test(path);

/**
 * The queries to refresh after a successful better-auth call (spec §4): the session after sign-out, update-user,
 * any sign-in or sign-up (a passkey's included), delete-user, verify-email, set-active, a verified two-factor code
 * (which completes a sign-in or turns two-factor on) and turning two-factor off; the organization list after
 * organization create, delete and update; the active organization after any organization call but a read; the active
 * member after update-member-role. `path` is relative to the auth base path (`/sign-in/email`).
 */
export function queriesToInvalidate(path: string): QueryKey[] {
  const keys: QueryKey[] = [];
  if (SESSION_PATHS.includes(path) || path.startsWith('/sign-in/') || path.startsWith('/sign-up/'))
    keys.push(sessionKey);
  if (ORG_LIST_PATHS.includes(path)) keys.push(organizationListKey);
  if (path.startsWith('/organization/') && !isOrganizationRead(path)) keys.push(activeOrganizationKey);
  if (path === '/organization/update-member-role') keys.push(activeMemberKey);
  return keys;
}

/** The path of a better-auth request URL below `/api/auth`, without its query. */
export function authPathOf(url: string | URL): string {
  const { pathname } = new URL(url, 'http://x.invalid');
  const at = pathname.indexOf('/api/auth');
  return at === -1 ? pathname : pathname.slice(at + '/api/auth'.length) || '/';
}
