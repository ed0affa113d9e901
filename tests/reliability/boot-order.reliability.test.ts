import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OwnBackend, prepareOwnBackend } from './faults/backend-faults.ts';
import { shuffled } from './faults/process-faults.ts';
import { expectAllAcked, expectLedgerHolds } from './ledger/report.ts';
import { type ScenarioCluster, scale, scenarioTimeout, sleep, startScenarioCluster } from './scenario.ts';

/** This file's own servers, started after the deployment: Kafka on 29580 (+1 controller), FerretDB on 29590 (+1). */
const KAFKA_PORT = 29580;
const FERRETDB_PORT = 29590;
/** How long the deployment runs with neither backend before the first one starts. */
const ALONE_MS = 10_000;

/**
 * Issue 28: every process of a distributed deployment started while Kafka and FerretDB are down, the backends
 * started ~10 s later in a random order. No process may exit (nothing restarts them here); the deployment must
 * become ready by itself and then keep a ledger load whole.
 */
describe('reliability: a whole deployment started before its backends (distributed mode)', () => {
  let kafka: OwnBackend;
  let ferret: OwnBackend;
  let env: ScenarioCluster;
  beforeAll(async () => {
    [kafka, ferret] = await Promise.all([
      prepareOwnBackend('kafka', KAFKA_PORT),
      prepareOwnBackend('ferretdb', FERRETDB_PORT),
    ]);
  });
  afterAll(async () => {
    await env?.stop();
    await Promise.allSettled([kafka?.stop(), ferret?.stop()]);
  });

  it(
    'no process exits, the first 2xx comes once both backends answer, and a load afterwards holds',
    async () => {
      const t0 = Date.now();
      env = await startScenarioCluster({ kafkaBrokers: kafka.url, mongoUrl: ferret.url }, 'alive');
      const aliveS = (Date.now() - t0) / 1000;
      const exited = () =>
        Object.values(env.cluster.processes)
          .filter((p) => p.child.exitCode !== null || p.child.signalCode !== null)
          .map((p) => `${p.name} (${p.child.exitCode ?? p.child.signalCode})`);
      await sleep(Math.max(0, t0 + ALONE_MS - Date.now()));
      expect(exited()).toEqual([]);

      const seed = Date.now() % 100_000;
      const order = shuffled([kafka, ferret], seed);
      for (const backend of order) await backend.start();
      const backendsAt = Date.now();
      const backendsUpS = (backendsAt - t0) / 1000;
      // The first answer of the API through the gateway (a public route: no account is needed to ask).
      let first2xxS = 0;
      for (; first2xxS === 0; await sleep(250)) {
        const res = await fetch(`${env.cluster.baseUrl}/api/v1/site`).catch(() => undefined);
        await res?.arrayBuffer();
        if (res?.ok) first2xxS = (Date.now() - t0) / 1000;
        if (Date.now() - t0 > 240_000) throw new Error('no 2xx within 240 s of the start');
      }
      const processes = Object.values(env.cluster.processes);
      for (;;) {
        const ready = await Promise.all(
          processes.map((p) =>
            fetch(`${p.url}/readyz`).then(
              (r) => r.ok,
              () => false,
            ),
          ),
        );
        if (ready.every(Boolean)) break;
        if (Date.now() - t0 > 240_000) throw new Error('not every process ready within 240 s of the start');
        await sleep(250);
      }
      const allReadyS = (Date.now() - t0) / 1000;
      process.stderr.write(
        `[reliability] boot-order: seed=${seed} order=${order.map((b) => b.kind).join(',')} alive=${aliveS}s ` +
          `backendsUp=${backendsUpS}s first2xx=${first2xxS}s allReady=${allReadyS}s\n`,
      );

      const form = await env.newForm('boot-order');
      const count = scale(600);
      const report = await env.check(form, await env.load(form, { count, connections: 20 }).done, {
        faultsEndedAt: backendsAt,
        recoveryDeadlineMs: 90_000,
        extra: { seed, first2xxS, allReadyS },
      });
      expectAllAcked(report);
      expectLedgerHolds(report, 90);
      expect(exited()).toEqual([]);
    },
    scenarioTimeout(600_000),
  );
});
