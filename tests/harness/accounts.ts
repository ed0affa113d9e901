import { randomUUID } from 'node:crypto';
import { type BrowserSession, createBrowserSession } from './browser-session.ts';

export const TEST_PASSWORD = 'correct horse battery staple';

export interface Org {
  id: string;
  name: string;
  slug: string;
}

/** Finds the link of the latest mail to `email` whose subject matches. */
export type MailLinkReader = (email: string, subject: RegExp) => Promise<string>;

const expectStatus = (what: string, reply: { status: number; body: unknown }, status = 200) => {
  if (reply.status !== status) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
};

/** Account journeys through the public auth API, the way the dashboard drives them. Works in both modes. */
export function createAccounts(baseUrl: string, mailLink: MailLinkReader) {
  const accounts = {
    /** Signs up, opens the verification link from the mail, and returns the signed-in browser session. */
    async signUp(email = `user-${randomUUID()}@example.test`): Promise<BrowserSession & { email: string }> {
      const browser = createBrowserSession(baseUrl);
      const reply = await browser.call('POST', '/api/auth/sign-up/email', {
        email,
        password: TEST_PASSWORD,
        name: email.split('@')[0],
        callbackURL: '/dashboard',
      });
      expectStatus('sign-up', reply);
      const link = await mailLink(email, /verify/i);
      expectStatus('verify-email', await browser.call('GET', link), 302);
      return Object.assign(browser, { email });
    },
    async createOrg(browser: BrowserSession, name = `Org ${randomUUID().slice(0, 8)}`): Promise<Org> {
      const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${randomUUID().slice(0, 6)}`;
      const reply = await browser.call('POST', '/api/auth/organization/create', { name, slug });
      expectStatus('organization/create', reply);
      return { id: reply.body.id, name, slug };
    },
    async createApiKey(browser: BrowserSession, scope: 'read' | 'write' = 'write'): Promise<string> {
      const reply = await browser.call('POST', '/api/v1/api-keys', { name: `test-${scope}`, scope });
      expectStatus('api-keys', reply, 201);
      return reply.body.key as string;
    },
    /** Invites `email` into the inviter's active organization with `role`, and has that user accept. */
    async addMember(inviter: BrowserSession, org: Org, role: string): Promise<BrowserSession & { email: string }> {
      const member = await accounts.signUp();
      const invite = await inviter.call('POST', '/api/auth/organization/invite-member', {
        email: member.email,
        role,
        organizationId: org.id,
      });
      expectStatus('invite-member', invite);
      const accept = await member.call('POST', '/api/auth/organization/accept-invitation', {
        invitationId: invite.body.id,
      });
      expectStatus('accept-invitation', accept);
      expectStatus(
        'set-active',
        await member.call('POST', '/api/auth/organization/set-active', { organizationId: org.id }),
      );
      return member;
    },
  };
  return accounts;
}

export type Accounts = ReturnType<typeof createAccounts>;

/** The write API key of organization `org`, created once per name: its owner signs up, verifies and creates it. */
export function createOrgKeys(accounts: Accounts) {
  const keys = new Map<string, Promise<string>>();
  return (org: string): Promise<string> => {
    let key = keys.get(org);
    if (!key) {
      key = (async () => {
        const owner = await accounts.signUp();
        await accounts.createOrg(owner, org);
        return accounts.createApiKey(owner, 'write');
      })();
      keys.set(org, key);
    }
    return key;
  };
}
