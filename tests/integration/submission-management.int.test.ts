import { afterAll, beforeAll } from 'vitest';
import { describeSubmissionManagementFlows } from '../flows/submission-management.flows.ts';
import { embeddedTarget } from '../flows/targets.ts';
import { startTestApp, type TestApp } from '../harness/embedded-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describeSubmissionManagementFlows(() => embeddedTarget(app));
