import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createAccounts, createOrgKeys } from '../harness/accounts.ts';
import { waitForMailLink } from '../harness/browser-session.ts';
import { type RunningProcess, restartProcess, startProcess, stopProcess } from '../harness/processes.ts';
import { kill9 } from './faults/process-faults.ts';
import { untilFinished } from './ledger/generator.ts';
import { expectAllAcked, expectLedgerHolds } from './ledger/report.ts';
import { check, createScenarioForm, loadOn, scale, scenarioTimeout } from './scenario.ts';

/** Embedded mode (one process, SQLite, the embedded event log) as its own process, killed -9 mid-burst. */
describe('reliability: embedded mode killed -9 mid-burst', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fg-reliability-'));
  let app: RunningProcess;
  beforeAll(async () => {
    app = await startProcess('embedded', 'hosts/embedded/src/main.ts', {
      DATA_DIR: dataDir,
      AUTH_SIGN_IN_PER_MINUTE: '10000',
      USER_LOOKUPS_PER_MINUTE: '10000',
    });
  });
  afterAll(async () => {
    if (app) await stopProcess(app);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'restarted on the same DATA_DIR, every acked submission is there exactly once',
    async () => {
      const accounts = createAccounts(app.url, async (email, subject) =>
        (await waitForMailLink(dataDir, email, subject)).replace('//localhost:', '//127.0.0.1:'),
      );
      const apiKey = await createOrgKeys(accounts)('embedded-kill');
      const form = await createScenarioForm(app.url, apiKey, 'embedded-kill', [app.url]);
      const count = scale(1_500);
      const load = loadOn(app.url, form, { count, connections: 30 });
      try {
        await untilFinished(load, count * 0.4);
        await kill9(app);
        const restartAt = Date.now();
        app = await restartProcess(app);
        const faultsEndedAt = Date.now();
        const report = await check(form, await load.done, {
          faultsEndedAt,
          recoveryDeadlineMs: 60_000,
          extra: { restartS: (faultsEndedAt - restartAt) / 1000 },
        });
        expectAllAcked(report);
        expectLedgerHolds(report, 60);
      } finally {
        await load.done;
      }
    },
    scenarioTimeout(180_000),
  );
});
