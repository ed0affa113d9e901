import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { waitForMailLink } from '../harness/browser-session.ts';
import { freePort, type RunningProcess, startProcess, stopProcess } from '../harness/processes.ts';
import { buildWeb } from '../harness/web-build.ts';
import { describePrivacyJourney } from './privacy-journey.ts';

/** Issue 31's privacy journey (retention, export, erasure and its receipt) against embedded Formgate. */
let app: RunningProcess;
let webDir: string;
const dataDir = mkdtempSync(join(tmpdir(), 'fg-privacy-browser-'));

beforeAll(async () => {
  const port = await freePort();
  webDir = await buildWeb();
  app = await startProcess('privacy-browser-app', 'hosts/embedded/src/main.ts', {
    PORT: String(port),
    DATA_DIR: dataDir,
    WEB_DIR: webDir,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
  });
}, 180_000);

afterAll(async () => {
  if (app) await stopProcess(app);
  rmSync(dataDir, { recursive: true, force: true });
  if (webDir) rmSync(webDir, { recursive: true, force: true });
});

describePrivacyJourney('embedded', () => ({
  url: app.url,
  mailLink: (email, subject) => waitForMailLink(dataDir, email, subject),
}));
