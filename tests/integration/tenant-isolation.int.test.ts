import { afterAll, beforeAll } from 'vitest';
import { embeddedTarget } from '../flows/targets.ts';
import { describeTenantIsolation } from '../flows/tenant-isolation.flows.ts';
import { startTestApp, type TestApp } from '../harness/embedded-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describeTenantIsolation(() => embeddedTarget(app));
