import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { readMailbox, waitForMailLink } from '../harness/browser-session.ts';
import { type CaptchaVerifier, startCaptchaVerifier } from '../harness/captcha-verifier.ts';
import { freePort, type RunningProcess, startProcess, stopProcess } from '../harness/processes.ts';
import { buildWeb } from '../harness/web-build.ts';
import { describeSpamJourney, SPAM_JOURNEY_SECRETS } from './spam-journey.ts';

/** Issue 14's spam journey against embedded Formgate, Turnstile verified by the local stand-in. */
let app: RunningProcess;
let verifier: CaptchaVerifier;
let webDir: string;
const dataDir = mkdtempSync(join(tmpdir(), 'fg-spam-browser-'));

beforeAll(async () => {
  verifier = await startCaptchaVerifier(SPAM_JOURNEY_SECRETS);
  const port = await freePort();
  webDir = await buildWeb();
  app = await startProcess('spam-browser-app', 'hosts/embedded/src/main.ts', {
    PORT: String(port),
    DATA_DIR: dataDir,
    WEB_DIR: webDir,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // Solved in Chromium and (for the scripted attacks) in Node: a smaller proof of work keeps the journey short.
    ALTCHA_MAX_COUNTER: '1000',
    ...verifier.env,
  });
}, 180_000);

afterAll(async () => {
  if (app) await stopProcess(app);
  await verifier?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (webDir) rmSync(webDir, { recursive: true, force: true });
});

describeSpamJourney('embedded', () => ({
  url: app.url,
  mailLink: (email, subject) => waitForMailLink(dataDir, email, subject),
  mailbox: (email) => readMailbox(dataDir, email),
  verifier,
  logs: () => app.output(),
}));
