import { defineConfig } from 'vitest/config';

/**
 * Vitest's default is one worker per core minus one: a single worker on the 2-core CI machine, so every file ran
 * after the other. The unit, web and integration tiers share nothing (each integration file starts its own
 * embedded Formgate on free ports), and much of their time is spent waiting on child processes and sockets: they run
 * three files at a time (group 0). The e2e tier shares one broker and one database: every deployment and every file
 * works in a namespace of its own there (topics and consumer groups under `KAFKA_TOPIC_PREFIX`, databases under
 * `MONGO_DB_PREFIX`, ADR 53), so it runs two files at a time (group 1; more would starve the processes of the
 * distributed deployments on two cores). The tiers that drive Chromium (browser) or inject faults (reliability)
 * keep one file at a time, each tier in its own group after it (2, 3). Every tier but unit and web records the API
 * answers it sees; the api-conformance check runs last (group 4).
 */
const PARALLEL = { maxWorkers: 3, sequence: { groupOrder: 0 } };
const serial = (groupOrder: number) => ({ maxWorkers: 1, fileParallelism: false, sequence: { groupOrder } });

export default defineConfig({
  test: {
    // Several embedded Formgates run at once on two cores here, each beside other tests' work in one session: their
    // services threads keep the process's CPU priority (ADR 84), or they would wait for the other files' threads.
    // Every process a test starts inherits it; thread-priority.int.test.ts checks the default.
    env: { SERVICES_THREAD_NICENESS: '0' },
    // The JSON report lets .ci/run print one closing "N passed, N failed" line; the failures file names every failed
    // test, hook and file with its error (the JSON report loses a failed beforeAll's error).
    reporters: [
      'default',
      ['json', { outputFile: '.run/vitest-results.json' }],
      ['./tests/harness/failures.reporter.ts', { outputFile: '.run/vitest-failures.txt' }],
    ],
    projects: [
      {
        // Services' email templates are .tsx (React Email), like the dashboard.
        oxc: { jsx: { runtime: 'automatic' } },
        test: { name: 'unit', include: ['**/*.unit.test.ts'], exclude: ['**/node_modules/**', 'web/**'], ...PARALLEL },
      },
      {
        // The dashboard's component tests: a DOM (jsdom), React and the real router, query client and toaster.
        oxc: { jsx: { runtime: 'automatic' } },
        test: {
          name: 'web',
          include: ['web/**/*.unit.test.{ts,tsx}'],
          exclude: ['**/node_modules/**'],
          environment: 'jsdom',
          setupFiles: ['web/test/setup.ts'],
          // A screen's test renders, types and waits on queries in jsdom: seconds when it shares the cores.
          testTimeout: 20_000,
          ...PARALLEL,
        },
      },
      {
        oxc: { jsx: { runtime: 'automatic' } },
        test: {
          name: 'int',
          include: ['**/*.int.test.ts'],
          exclude: ['**/node_modules/**'],
          // Every file records the API answers it sees; the api-conformance project checks them (CONTRIBUTING.md).
          globalSetup: ['tests/harness/api-samples.global-setup.ts'],
          setupFiles: ['tests/harness/api-recording.setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          ...PARALLEL,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['**/*.e2e.test.ts'],
          exclude: ['**/node_modules/**'],
          globalSetup: ['tests/harness/global-setup.ts', 'tests/harness/api-samples.global-setup.ts'],
          setupFiles: ['tests/harness/api-recording.setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Two files at a time, each in its own namespace on the shared broker and database (ADR 53).
          maxWorkers: 2,
          fileParallelism: true,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // Real Chromium (Debian's, tests/harness/chromium.ts) against the running app; screenshots of every screen
        // go to .run/artifacts/screenshots. One file at a time: a browser and an app per file on two cores.
        test: {
          name: 'browser',
          include: ['tests/browser/**/*.browser.test.ts'],
          exclude: ['**/node_modules/**'],
          // Node's fetch and Chromium's pages (launchChromium) record their API answers.
          globalSetup: ['tests/harness/api-samples.global-setup.ts'],
          setupFiles: ['tests/harness/api-recording.setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          ...serial(2),
        },
      },
      {
        // Fault injection under load (tests/reliability/README.md). One file at a time, after the other tiers:
        // each file runs a whole deployment and some kill their own broker or database.
        test: {
          name: 'reliability',
          include: ['tests/reliability/**/*.reliability.test.ts'],
          exclude: ['**/node_modules/**'],
          // fetch and the load generator record their API answers (bounded per route and status: api-recorder.ts).
          globalSetup: ['tests/harness/global-setup.ts', 'tests/harness/api-samples.global-setup.ts'],
          setupFiles: ['tests/harness/api-recording.setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          ...serial(3),
        },
      },
      {
        // The answers the int, e2e, browser and reliability tiers recorded (.run/api-samples/) against the OpenAPI
        // description, once they are all done: the last group (4). It shared group 2 with the browser tier before,
        // where it ran as one more file of that single-worker queue, so the run's length does not change (the file
        // itself takes about 3 s, 0.5 s of it the check). A throwing global teardown would not do: vitest prints it
        // but exits 0 (ADR 52).
        test: {
          name: 'api-conformance',
          include: ['tests/conformance/**/*.conformance.test.ts'],
          exclude: ['**/node_modules/**'],
          ...serial(4),
        },
      },
    ],
  },
});
