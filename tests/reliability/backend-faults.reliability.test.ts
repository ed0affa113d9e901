import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type WebhookReceiver } from '../../services/notifications/test/webhook-receiver.ts';
import { relatedDeadLetters, watchEffects } from './effects.ts';
import { type OwnBackend, startOwnBackend } from './faults/backend-faults.ts';
import { type Load, type LoadOptions, untilFinished } from './ledger/generator.ts';
import { expectAllAcked, expectLedgerHolds, printReport } from './ledger/report.ts';
import {
  apiProbe,
  probeApi,
  type ScenarioCluster,
  scale,
  scenarioTimeout,
  sleep,
  startScenarioCluster,
} from './scenario.ts';

/** This file's own servers (never the shared e2e ones): Kafka on 29520 (+29521 controller), FerretDB on 29530. */
const KAFKA_PORT = 29520;
const FERRETDB_PORT = 29530;
/**
 * The notifications instance's attempt lease (3 min by default): an attempt whose outcome the store did not record is
 * sent again once it has passed, so the storage scenarios wait that long after the outage for such a copy.
 */
const ATTEMPT_LEASE_MS = 30_000;
const MANY_EMAILS_PLANS_FILE = resolve(import.meta.dirname, '../harness/plans/many-emails.json');

/**
 * Faults of the broker and of the database (kill -9 of the server process named by its pid file, then a restart on
 * the same data) under load, on a distributed deployment of this file's own.
 */
describe('reliability: broker and database faults under load (distributed mode)', () => {
  let kafka: OwnBackend;
  let ferret: OwnBackend;
  let env: ScenarioCluster;
  /** The webhook endpoint of the storage scenarios' forms (each at a path of its own). */
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    [kafka, ferret, receiver] = await Promise.all([
      startOwnBackend('kafka', KAFKA_PORT),
      startOwnBackend('ferretdb', FERRETDB_PORT),
      startReceiver(),
    ]);
    receiver.handler = (_request, response) => response.writeHead(204).end();
    env = await startScenarioCluster({ kafkaBrokers: kafka.url, mongoUrl: ferret.url }, 'ready', {
      // The receiver listens on loopback.
      notificationsEnv: {
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
        NOTIFICATIONS_ATTEMPT_LEASE_MS: `${ATTEMPT_LEASE_MS}`,
      },
      // The storage scenarios mail every submission: more than the roomy plans' 1,000 emails a month would defer.
      plansFile: MANY_EMAILS_PLANS_FILE,
    });
  });
  afterAll(async () => {
    await env?.stop();
    await Promise.all([kafka?.stop(), ferret?.stop(), receiver?.close()]);
  });
  /** Whatever a scenario did, the next one starts with both servers (and FerretDB's PostgreSQL) up. */
  const restoreBackends = async () => {
    for (const server of [kafka, ferret]) if (!server.running()) await server.start();
    if (!ferret.storageRunning()) await ferret.startStorage();
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

  /**
   * PostgreSQL killed -9 under a live FerretDB for 8 s (issue 28: FerretDB then answers every command with an error
   * naming its PostgreSQL, which consumers once took for a poison message) while `load` runs against a form that
   * mails a verified address and calls a webhook for every submission; the fault starts when `faultAt` returns.
   * Every acked submission stored once, none dead-lettered anywhere, each mailed and webhooked exactly once, and
   * the API answers 200 or 503 + Retry-After throughout, to a cached API key, a fresh one and a session cookie.
   */
  const storageOutage = async (
    scenario: string,
    opts: Omit<LoadOptions, 'baseUrl' | 'formKey' | 'runId'>,
    faultAt: (load: Load) => Promise<unknown>,
  ) => {
    const { form, owner } = await env.newOwnedForm(scenario);
    const effects = await watchEffects(env, form, receiver);
    // A key never used before the outage each round: the gateway cannot have it cached.
    const freshKeys: string[] = [];
    for (let i = 0; i < 40; i++) freshKeys.push(await env.cluster.accounts.createApiKey(owner));
    const session = { cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; '), origin: env.cluster.baseUrl };
    const load = env.load(form, opts);
    try {
      await faultAt(load);
      const probes = probeApi(env.cluster.baseUrl, `/api/v1/forms/${form.id}`, {
        cachedKey: () => form.apiKey,
        freshKey: () => freshKeys.pop() ?? form.apiKey,
        session: () => session,
      });
      const downAt = Date.now();
      await ferret.killStorage();
      await sleep(8_000);
      await ferret.startStorage();
      const faultsEndedAt = Date.now();
      await sleep(5_000); // and while the deployment reconnects
      const answers = await probes.stop();
      const ledger = await load.done;
      const report = await env.check(form, ledger, { faultsEndedAt, recoveryDeadlineMs: 90_000, print: false });
      const acked = new Set(ledger.entries.flatMap((e) => (e.outcome === 'acked' ? [e.id as string] : [])));
      await effects.untilDelivered(acked, faultsEndedAt + ATTEMPT_LEASE_MS + 120_000);
      // A send whose outcome the store lost is made again once its lease has passed: wait for such a copy.
      await sleep(Math.max(3_000, faultsEndedAt + ATTEMPT_LEASE_MS + 15_000 - Date.now()));
      const listed = new Set((await form.readModel.listAll(form.id)).map((x) => x.id));
      const tally = effects.tally(acked, listed);
      const deadLetters = await relatedDeadLetters(env.backends.kafkaBrokers, form.id, effects.orgId);
      const api: Record<string, number> = {};
      for (const a of answers) {
        const label = `${a.client}:${a.status}${a.retryAfter ? '+retry-after' : ''}`;
        api[label] = (api[label] ?? 0) + 1;
      }
      printReport(report, {
        // From the kill until FerretDB could write again (the postmaster reaped, 8 s, PostgreSQL's recovery).
        storageDownS: (faultsEndedAt - downAt) / 1000,
        mails: tally.mails,
        webhooks: tally.webhooks,
        lostMails: tally.lostMails.length,
        lostWebhooks: tally.lostWebhooks.length,
        dupMails: tally.dupMails,
        dupWebhooks: tally.dupWebhooks,
        strayMails: tally.strayMails.length,
        strayWebhooks: tally.strayWebhooks.length,
        otherDlq: deadLetters.length,
        api: JSON.stringify(api),
      });
      const lost = [...new Set([...tally.lostMails, ...tally.lostWebhooks])].slice(0, 5);
      for (const line of await effects.deliveryLogs(lost))
        process.stderr.write(`[reliability] ${scenario}: lost ${line}\n`);
      expectAllAcked(report);
      expectLedgerHolds(report, 90);
      expect(deadLetters, 'dead letters of the form or its organization').toEqual([]);
      expect(tally, 'each acked submission mailed and webhooked once, nothing unlisted').toMatchObject({
        lostMails: [],
        lostWebhooks: [],
        dupMails: 0,
        dupWebhooks: 0,
        strayMails: [],
        strayWebhooks: [],
      });
      const wrong = answers.filter((a) => !(a.status === 200 || (a.status === 503 && a.retryAfter)));
      expect(wrong, 'API answers during the storage outage').toEqual([]);
    } finally {
      await load.done;
      await restoreBackends();
    }
  };

  it(
    'PostgreSQL killed under a live FerretDB for 8 s at a trickle of 20/s: nothing dead-lettered, lost or sent twice',
    // Batches of one: the case that used to dead-letter every record of the outage.
    () =>
      storageOutage('storage-kill-trickle', { count: scale(600), connections: 10, ratePerSecond: 20 }, () =>
        sleep(5_000),
      ),
    scenarioTimeout(420_000),
  );

  it(
    'PostgreSQL killed under a live FerretDB for 8 s at full load: nothing dead-lettered, lost or sent twice',
    () =>
      storageOutage('storage-kill-burst', { count: scale(1_000), connections: 30 }, (load) =>
        untilFinished(load, scale(1_000) * 0.3),
      ),
    scenarioTimeout(420_000),
  );
});
