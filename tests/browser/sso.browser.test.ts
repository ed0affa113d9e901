import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { waitForMailLink } from '../harness/browser-session.ts';
import { startDnsServer, type TestDnsServer } from '../harness/dns-server.ts';
import { startTestIdp, type TestIdp } from '../harness/oidc-idp.ts';
import { freePort, type RunningProcess, startProcess, stopProcess } from '../harness/processes.ts';
import { buildWeb } from '../harness/web-build.ts';
import { describeSsoJourney } from './sso-journey.ts';

/**
 * Issue 32's single sign-on journey (connecting the identity provider, verifying the domain, signing in with SSO,
 * the organization's gate) against embedded Formgate, a real OpenID provider and a real DNS server.
 */
let app: RunningProcess;
let idp: TestIdp;
let dns: TestDnsServer;
let webDir: string;
const dataDir = mkdtempSync(join(tmpdir(), 'fg-sso-browser-'));

beforeAll(async () => {
  // Before the app: it is told their addresses.
  idp = await startTestIdp();
  dns = await startDnsServer();
  const port = await freePort();
  webDir = await buildWeb();
  app = await startProcess('sso-browser-app', 'hosts/embedded/src/main.ts', {
    PORT: String(port),
    DATA_DIR: dataDir,
    WEB_DIR: webDir,
    // The redirect URI the page shows, and the links of the mails, on the address the browser uses.
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // The provider is on loopback, which single sign-on refuses unless the operator trusts it.
    SSO_TRUSTED_IDP_ORIGINS: idp.origin,
    // The verification record is looked up there.
    DNS_SERVERS: dns.address,
    // Three sign-ups, several sign-ins and verifications from one address within a minute: more than the per-minute
    // default allows. Limits are the flows' subject (sso.flows.ts), not this one's.
    AUTH_SIGN_IN_PER_MINUTE: '10000',
  });
}, 180_000);

afterAll(async () => {
  if (app) await stopProcess(app);
  await idp?.stop();
  await dns?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (webDir) rmSync(webDir, { recursive: true, force: true });
});

describeSsoJourney('embedded', () => ({
  url: app.url,
  idp,
  dns,
  mailLink: (email, subject) => waitForMailLink(dataDir, email, subject),
}));
