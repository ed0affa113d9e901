import { afterAll, beforeAll } from 'vitest';
import { embeddedTarget } from '../flows/targets.ts';
import { describeTwoFactorFlows } from '../flows/two-factor.flows.ts';
import { startTestApp, type TestApp } from '../harness/embedded-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describeTwoFactorFlows(() => embeddedTarget(app));
