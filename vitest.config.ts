import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The JSON report lets .ci/run print one closing "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: '.run/vitest-results.json' }]],
    projects: [
      {
        // Services' email templates are .tsx (React Email), like the dashboard.
        oxc: { jsx: { runtime: 'automatic' } },
        test: { name: 'unit', include: ['**/*.unit.test.ts'], exclude: ['**/node_modules/**', 'web/**'] },
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
        },
      },
      {
        oxc: { jsx: { runtime: 'automatic' } },
        test: {
          name: 'int',
          include: ['**/*.int.test.ts'],
          exclude: ['**/node_modules/**'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['**/*.e2e.test.ts'],
          exclude: ['**/node_modules/**'],
          globalSetup: ['tests/harness/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        // Real Chromium (Debian's, tests/harness/chromium.ts) against the running app; screenshots of every screen
        // go to .run/artifacts/screenshots. One file at a time: a browser and an app per file on two cores.
        test: {
          name: 'browser',
          include: ['tests/browser/**/*.browser.test.ts'],
          exclude: ['**/node_modules/**'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        // Fault injection under load (tests/reliability/README.md). One file at a time, after the other tiers:
        // each file runs a whole deployment and some kill their own broker or database.
        test: {
          name: 'reliability',
          include: ['tests/reliability/**/*.reliability.test.ts'],
          exclude: ['**/node_modules/**'],
          globalSetup: ['tests/harness/global-setup.ts'],
          fileParallelism: false,
          maxWorkers: 1,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
