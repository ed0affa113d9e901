import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kill9, shuffled, whilePaused } from './faults/process-faults.ts';
import { untilFinished } from './ledger/generator.ts';
import { expectAllAcked, expectLedgerHolds } from './ledger/report.ts';
import {
  apiProbe,
  type ScenarioCluster,
  scale,
  scenarioTimeout,
  sharedBackends,
  sleep,
  startScenarioCluster,
} from './scenario.ts';

/**
 * Faults of single processes of a distributed deployment (gateway, 2 ingest, 2 forms, billing, orgs) on the shared
 * e2e broker and database, under load from the ledger generator. Each scenario has its own form (and organization)
 * and leaves every process running again, whatever its outcome.
 */
describe('reliability: process faults under load (distributed mode)', () => {
  let env: ScenarioCluster;
  beforeAll(async () => {
    env = await startScenarioCluster(sharedBackends());
  });
  afterAll(async () => {
    await env?.stop();
  });
  /** Brings back every process a scenario killed, so one failing scenario does not break the next. */
  const restoreAll = async () => {
    for (const [name, p] of Object.entries(env.cluster.processes)) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) await env.cluster.restart(name);
    }
  };

  it(
    'kill -9 of a forms instance: the survivor takes over its partitions, every acked submission stored once',
    async () => {
      const form = await env.newForm('forms-kill');
      const count = scale(1_000);
      const load = env.load(form, { count, connections: 30 });
      try {
        await untilFinished(load, count * 0.3);
        await kill9(env.proc('forms-1'));
        const killedAt = Date.now();
        const ledger = await load.done;
        // Proof of the takeover while forms-1 is still dead: the form's counter reaches the acked count.
        const acked = ledger.entries.filter((e) => e.outcome === 'acked').length;
        let takeoverSeconds: number | null = null;
        for (const end = Date.now() + 90_000; Date.now() < end && takeoverSeconds === null; await sleep(500)) {
          if ((await form.readModel.count(form.id)) >= acked) takeoverSeconds = (Date.now() - killedAt) / 1000;
        }
        // The gateway routes API reads to both forms instances: bring forms-1 back before the full listing.
        await restoreAll();
        const report = await env.check(form, ledger, {
          faultsEndedAt: killedAt,
          recoveryDeadlineMs: 90_000,
          extra: { takeoverS: takeoverSeconds },
        });
        expect(takeoverSeconds, 'forms-2 alone never caught up after forms-1 was killed').not.toBeNull();
        expectAllAcked(report);
        expectLedgerHolds(report, 90);
      } finally {
        await load.done;
        await restoreAll();
      }
    },
    scenarioTimeout(240_000),
  );

  it(
    'kill -9 of an ingest instance, restarted 5 s later: clients retrying with their key lose nothing',
    async () => {
      const form = await env.newForm('ingest-kill');
      const count = scale(1_000);
      const load = env.load(form, { count, connections: 30 });
      try {
        await untilFinished(load, count * 0.3);
        await kill9(env.proc('ingest-1'));
        await sleep(5_000);
        const restartAt = Date.now();
        await env.cluster.restart('ingest-1');
        const faultsEndedAt = Date.now();
        const report = await env.check(form, await load.done, {
          faultsEndedAt,
          recoveryDeadlineMs: 60_000,
          extra: { restartS: (faultsEndedAt - restartAt) / 1000 },
        });
        expectAllAcked(report);
        expectLedgerHolds(report, 60);
      } finally {
        await load.done;
        await restoreAll();
      }
    },
    scenarioTimeout(240_000),
  );

  it(
    'SIGSTOP of billing for 10 s: submissions and the forms/orgs API keep working; billing catches up after SIGCONT',
    async () => {
      const form = await env.newForm('billing-pause');
      const count = scale(750);
      const load = env.load(form, { count, connections: 20, ratePerSecond: 50 });
      try {
        await untilFinished(load, count * 0.2);
        const paths = [
          `/api/v1/forms/${form.id}`,
          `/api/v1/forms/${form.id}/submissions?limit=5`,
          '/api/v1/orgs/settings',
        ];
        // Each probe gets 8 s: a call waiting on the stopped billing would hang until SIGCONT, 9 s after it began.
        const probeAll = () => Promise.all(paths.map((p) => apiProbe(env.cluster.baseUrl, form.apiKey, p, 8_000)));
        const baseline = await probeAll();
        const before = load.progress().acked;
        const probes = await whilePaused(env.proc('billing'), 10_000, async () => {
          await sleep(1_000);
          return probeAll();
        });
        const pausedAcked = load.progress().acked - before;
        const faultsEndedAt = Date.now();
        const report = await env.check(form, await load.done, {
          faultsEndedAt,
          recoveryDeadlineMs: 60_000,
          extra: {
            ackedWhilePaused: pausedAcked,
            baseline: baseline.map((p) => `${p.status}/${p.ms}ms`).join(','),
            probes: probes.map((p) => `${p.status}/${p.ms}ms`).join(','),
          },
        });
        expect(probes.map((p) => ({ path: p.path, status: p.status }))).toEqual(
          probes.map((p) => ({ path: p.path, status: 200 })),
        );
        expect(pausedAcked, 'submissions acked while billing was stopped').toBeGreaterThan(50);
        expectAllAcked(report);
        expectLedgerHolds(report, 60);
        // Billing meters every stored submission once, after it resumed.
        let used: unknown;
        for (const end = Date.now() + 60_000; Date.now() < end && used !== report.stored; await sleep(1_000)) {
          const res = await fetch(`${env.cluster.baseUrl}/api/v1/billing/usage`, {
            headers: { 'x-api-key': form.apiKey },
          });
          used = res.ok ? ((await res.json()) as { submissions: { used: number } }).submissions.used : res.status;
        }
        expect(used, 'billing usage after SIGCONT').toBe(report.stored);
      } finally {
        await load.done;
      }
    },
    scenarioTimeout(240_000),
  );

  it(
    'every process killed -9 and restarted, in a random order with random delays, under load: nothing acked lost',
    async () => {
      const form = await env.newForm('restart-all');
      const seed = randomInt(1, 2 ** 31);
      const order = shuffled(Object.keys(env.cluster.processes), seed);
      const count = scale(1_000);
      const load = env.load(form, { count, connections: 30, ratePerSecond: 50 });
      const restarts: Promise<unknown>[] = [];
      try {
        await untilFinished(load, count * 0.2);
        // Overlapping outages: each process goes down 1–3 s after the previous one and stays down 1–4 s.
        for (const name of order) {
          await kill9(env.proc(name));
          restarts.push(sleep(randomInt(1_000, 4_000)).then(() => env.cluster.restart(name)));
          await sleep(randomInt(1_000, 3_000));
        }
        const failed = (await Promise.allSettled(restarts)).filter((r) => r.status === 'rejected');
        expect(failed, 'restarts that failed').toEqual([]);
        const faultsEndedAt = Date.now();
        const report = await env.check(form, await load.done, {
          faultsEndedAt,
          recoveryDeadlineMs: 90_000,
          extra: { seed, order: order.join('>') },
        });
        expectAllAcked(report);
        expectLedgerHolds(report, 90);
      } finally {
        await Promise.allSettled(restarts);
        await load.done;
        await restoreAll();
      }
    },
    scenarioTimeout(300_000),
  );

  it(
    'the gateway with one dead ingest upstream: every request still succeeds at the first attempt',
    async () => {
      const form = await env.newForm('one-ingest-dead');
      await kill9(env.proc('ingest-1'));
      try {
        const count = scale(100);
        const load = env.load(form, { count, connections: 10, maxAttempts: 1 });
        const report = await env.check(form, await load.done, {
          faultsEndedAt: Date.now(),
          recoveryDeadlineMs: 30_000,
        });
        expectLedgerHolds(report, 30);
        expect(report.statusCounts, 'statuses of single attempts with ingest-1 dead').toEqual({ 200: count });
      } finally {
        await restoreAll();
      }
    },
    scenarioTimeout(180_000),
  );
});
