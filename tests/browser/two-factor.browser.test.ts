import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { waitForMailLink } from '../harness/browser-session.ts';
import { freePort, type RunningProcess, startProcess, stopProcess } from '../harness/processes.ts';
import { buildWeb } from '../harness/web-build.ts';
import { describeTwoFactorJourney } from './two-factor-journey.ts';

/** Issue 32's two-factor journey (setup, sign-in with a code or a backup code, the organization's gate) against embedded Formgate. */
let app: RunningProcess;
let webDir: string;
const dataDir = mkdtempSync(join(tmpdir(), 'fg-two-factor-browser-'));

beforeAll(async () => {
  const port = await freePort();
  webDir = await buildWeb();
  app = await startProcess('two-factor-browser-app', 'hosts/embedded/src/main.ts', {
    PORT: String(port),
    DATA_DIR: dataDir,
    WEB_DIR: webDir,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // Two sign-ups, five sign-ins and a dozen two-factor calls from one address within a minute: more than the
    // per-minute default allows. Limits and lockouts are the flows' subject (two-factor.flows.ts), not this one's.
    AUTH_SIGN_IN_PER_MINUTE: '10000',
  });
}, 180_000);

afterAll(async () => {
  if (app) await stopProcess(app);
  rmSync(dataDir, { recursive: true, force: true });
  if (webDir) rmSync(webDir, { recursive: true, force: true });
});

describeTwoFactorJourney('embedded', () => ({
  url: app.url,
  mailLink: (email, subject) => waitForMailLink(dataDir, email, subject),
}));
