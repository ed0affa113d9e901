import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OwnBackend, startOwnBackend } from './faults/backend-faults.ts';
import { untilFinished } from './ledger/generator.ts';
import { expectAllAcked, expectLedgerHolds } from './ledger/report.ts';
import { apiProbe, type ScenarioCluster, scale, scenarioTimeout, sleep, startScenarioCluster } from './scenario.ts';

/** This file's own servers (never the shared e2e ones): Kafka on 29520 (+29521 controller), FerretDB on 29530. */
const KAFKA_PORT = 29520;
const FERRETDB_PORT = 29530;

/**
 * Faults of the broker and of the database (kill -9 of the server process named by its pid file, then a restart on
 * the same data) under load, on a distributed deployment of this file's own.
 */
describe('reliability: broker and database faults under load (distributed mode)', () => {
  let kafka: OwnBackend;
  let ferret: OwnBackend;
  let env: ScenarioCluster;
  beforeAll(async () => {
    [kafka, ferret] = await Promise.all([
      startOwnBackend('kafka', KAFKA_PORT),
      startOwnBackend('ferretdb', FERRETDB_PORT),
    ]);
    env = await startScenarioCluster({ kafkaBrokers: kafka.url, mongoUrl: ferret.url });
  });
  afterAll(async () => {
    await env?.stop();
    await Promise.all([kafka?.stop(), ferret?.stop()]);
  });
  /** Whatever a scenario did, the next one starts with both servers up. */
  const restoreBackends = async () => {
    for (const server of [kafka, ferret]) if (!server.running()) await server.start();
  };
  /** kill -9 of `server`, down for `downMs`, started again; returns when it answers (the fault's end). */
  const outage = async (server: OwnBackend, downMs: number) => {
    await server.kill9();
    await sleep(downMs);
    await server.start();
    return Date.now();
  };

  it(
    'kill -9 of the broker, restarted after 5 s: ingest recovers by itself, nothing acked is lost',
    async () => {
      const form = await env.newForm('broker-kill');
      const count = scale(1_000);
      const load = env.load(form, { count, connections: 30 });
      try {
        await untilFinished(load, count * 0.3);
        const downAt = Date.now();
        const faultsEndedAt = await outage(kafka, 5_000);
        const report = await env.check(form, await load.done, {
          faultsEndedAt,
          recoveryDeadlineMs: 90_000,
          extra: { brokerDownS: (faultsEndedAt - downAt) / 1000 },
        });
        expectAllAcked(report);
        expectLedgerHolds(report, 90);
      } finally {
        await load.done;
        await restoreBackends();
      }
    },
    scenarioTimeout(300_000),
  );

  it(
    'database outages at a trickle of 20/s (5 s, 5 s, then 60 s: longer than a consumer’s retries): nothing acked is dead-lettered',
    async () => {
      const form = await env.newForm('db-outages-trickle');
      // A trickle keeps batches at one record: a failing batch of one goes to the DLQ once its attempts are spent.
      const load = env.load(form, { count: scale(800), connections: 10, ratePerSecond: 20 });
      try {
        let faultsEndedAt = 0;
        for (const downMs of [5_000, 5_000, 60_000]) {
          await sleep(3_000);
          faultsEndedAt = await outage(ferret, downMs);
        }
        const report = await env.check(form, await load.done, { faultsEndedAt, recoveryDeadlineMs: 90_000 });
        expectAllAcked(report);
        expectLedgerHolds(report, 90);
      } finally {
        await load.done;
        await restoreBackends();
      }
    },
    scenarioTimeout(300_000),
  );

  it(
    'a 5 s database outage at full load: nothing acked is lost or dead-lettered',
    async () => {
      const form = await env.newForm('db-outage-burst');
      const count = scale(1_000);
      const load = env.load(form, { count, connections: 30 });
      try {
        await untilFinished(load, count * 0.3);
        const faultsEndedAt = await outage(ferret, 5_000);
        const report = await env.check(form, await load.done, { faultsEndedAt, recoveryDeadlineMs: 90_000 });
        expectAllAcked(report);
        expectLedgerHolds(report, 90);
      } finally {
        await load.done;
        await restoreBackends();
      }
    },
    scenarioTimeout(300_000),
  );

  it(
    'with the accounts database down a valid API key is never answered 401 (503 + Retry-After, or served)',
    async () => {
      const form = await env.newForm('accounts-db-down');
      const paths = [`/api/v1/forms/${form.id}`, '/api/v1/orgs/settings', '/api/v1/flags/emailManagement'];
      const probeAll = () => Promise.all(paths.map((p) => apiProbe(env.cluster.baseUrl, form.apiKey, p, 30_000)));
      expect((await probeAll()).map((p) => p.status)).toEqual([200, 200, 200]);
      await ferret.kill9();
      try {
        const probes = await probeAll();
        process.stderr.write(
          `[reliability] accounts-db-down: probes=${probes.map((p) => `${p.status}(retry-after=${p.retryAfter})/${p.ms}ms`).join(',')}\n`,
        );
        const wrong = probes.filter((p) => !(p.status === 200 || (p.status === 503 && p.retryAfter)));
        expect(wrong, 'answers to a valid API key with the database down').toEqual([]);
      } finally {
        await restoreBackends();
      }
    },
    scenarioTimeout(180_000),
  );
});
