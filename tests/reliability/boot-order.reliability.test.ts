import { randomUUID } from 'node:crypto';
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
/** Issue 28's bound: a record sent once the broker is back is consumed within this long of its return. */
const CATCH_UP_MS = 5_000;

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
  /** The processes that are gone (nothing restarts them here). */
  const exited = () =>
    Object.values(env.cluster.processes)
      .filter((p) => p.child.exitCode !== null || p.child.signalCode !== null)
      .map((p) => `${p.name} (${p.child.exitCode ?? p.child.signalCode})`);
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

  it(
    'after a broker outage of the running deployment, a submission sent on its return is stored within 5 s',
    async () => {
      const form = await env.newForm('broker-return');
      await kafka.kill9();
      await sleep(10_000); // past the consumers' session (10 s): their members must rejoin, not just reconnect
      await kafka.start();
      const backAt = Date.now();
      // A client that retries on 503 + Retry-After, as the load generator does, until its submission is acked.
      const probe = randomUUID();
      let id: string | undefined;
      while (id === undefined && Date.now() - backAt < 60_000) {
        const res = await fetch(`${env.cluster.baseUrl}/f/${form.key}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ ledger: probe }),
        }).catch(() => undefined);
        const body = (await res?.json().catch(() => undefined)) as { id?: string } | undefined;
        if (res?.ok) id = body?.id;
        else await sleep(100);
      }
      const ackedS = (Date.now() - backAt) / 1000;
      let storedS = 0;
      for (; storedS === 0 && Date.now() - backAt < 120_000; await sleep(100)) {
        const stored = await form.readModel.listAll(form.id);
        if (stored.some((s) => s.id === id)) storedS = (Date.now() - backAt) / 1000;
      }
      process.stderr.write(
        `[reliability] broker-return: acked=${ackedS}s stored=${storedS}s after the broker's return\n`,
      );
      expect(id).toBeDefined();
      expect(storedS).toBeGreaterThan(0);
      expect(storedS * 1000).toBeLessThanOrEqual(CATCH_UP_MS);
      expect(exited()).toEqual([]);
    },
    scenarioTimeout(300_000),
  );
});
