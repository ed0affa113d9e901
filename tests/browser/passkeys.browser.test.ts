import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { waitForMailLink } from '../harness/browser-session.ts';
import { freePort, type RunningProcess, startProcess, stopProcess } from '../harness/processes.ts';
import { buildWeb } from '../harness/web-build.ts';
import { describePasskeyJourney } from './passkeys-journey.ts';

/**
 * Passkeys (add, rename, sign in, remove) against embedded Formgate. WebAuthn takes a host name, never an IP address,
 * as the relying party: the app's public URL, and so its passkey relying party and trusted origin, is
 * `http://localhost:<port>`, and the browser opens it there (the process listens on 127.0.0.1, which localhost is).
 */
let app: RunningProcess;
let webDir: string;
let url: string;
const dataDir = mkdtempSync(join(tmpdir(), 'fg-passkeys-browser-'));

beforeAll(async () => {
  const port = await freePort();
  url = `http://localhost:${port}`;
  webDir = await buildWeb();
  app = await startProcess('passkeys-browser-app', 'hosts/embedded/src/main.ts', {
    PORT: String(port),
    DATA_DIR: dataDir,
    WEB_DIR: webDir,
    PUBLIC_URL: url,
  });
}, 180_000);

afterAll(async () => {
  if (app) await stopProcess(app);
  rmSync(dataDir, { recursive: true, force: true });
  if (webDir) rmSync(webDir, { recursive: true, force: true });
});

describePasskeyJourney('embedded', () => ({
  url,
  mailLink: (email, subject) => waitForMailLink(dataDir, email, subject),
}));
