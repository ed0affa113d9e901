import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { waitForMailLink } from '../harness/browser-session.ts';
import { freePort, type RunningProcess, startProcess, stopProcess } from '../harness/processes.ts';
import { BILLING_JOURNEY_PLANS_FILE, type StripeStandIn, startStripeStandIn } from '../harness/stripe-stand-in.ts';
import { buildWeb } from '../harness/web-build.ts';
import { describeBillingJourney } from './billing-journey.ts';

/** Issue 13's billing journey against embedded Formgate taking payments through stripe-mock. */
let app: RunningProcess;
let stripe: StripeStandIn;
let webDir: string;
const dataDir = mkdtempSync(join(tmpdir(), 'fg-billing-browser-'));

beforeAll(async () => {
  stripe = await startStripeStandIn();
  const port = await freePort();
  webDir = await buildWeb();
  app = await startProcess('billing-browser-app', 'hosts/embedded/src/main.ts', {
    PORT: String(port),
    DATA_DIR: dataDir,
    WEB_DIR: webDir,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    PLANS_FILE: BILLING_JOURNEY_PLANS_FILE,
    ...stripe.env,
  });
}, 180_000);

afterAll(async () => {
  if (app) await stopProcess(app);
  await stripe?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (webDir) rmSync(webDir, { recursive: true, force: true });
});

describeBillingJourney('embedded', () => ({
  url: app.url,
  mailLink: (email, subject) => waitForMailLink(dataDir, email, subject),
  stripe,
}));
