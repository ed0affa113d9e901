import { afterAll, beforeAll } from 'vitest';
import { describeSsoFlows } from '../flows/sso.flows.ts';
import { embeddedTarget } from '../flows/targets.ts';
import { startTestApp, type TestApp } from '../harness/embedded-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describeSsoFlows(() => embeddedTarget(app));
