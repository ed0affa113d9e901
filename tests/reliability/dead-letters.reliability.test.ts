import { randomBytes } from 'node:crypto';
import { DeadLetterHeader } from '@formgate/bus';
import { decodeEvent, dlqTopic, Topics } from '@formgate/contracts';
import { Kafka, type Kafka as KafkaClient, logLevel, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningProcess } from '../harness/processes.ts';
import {
  holdersOf,
  type PlantedLetter,
  plantDeadLetters,
  publishPoison,
  rawProducer,
  type Written,
} from './faults/poison.ts';
import { kill9 } from './faults/process-faults.ts';
import { checkLedger } from './ledger/checker.ts';
import { type DlqRecord, readDlqRecords, readSubmissionDlq, readTopicRecords } from './ledger/dlq.ts';
import { untilFinished } from './ledger/generator.ts';
import { expectAllAcked, expectLedgerHolds, printReport } from './ledger/report.ts';
import type { LedgerEntry } from './ledger/types.ts';
import {
  type ScenarioCluster,
  scale,
  scenarioTimeout,
  sharedBackends,
  sleep,
  startScenarioCluster,
} from './scenario.ts';

/** The consumer groups of `ingest.submission`: each dead-letters a poison pill on its own. */
const GROUPS = [
  'billing.storage',
  'billing.usage',
  'forms.submission-received',
  'notifications.deliveries',
  'notifications.webhooks',
];
const TOPIC = Topics.ingestSubmission;
const DLQ = dlqTopic(TOPIC);
/**
 * From publishing a pill to its dead letter. `x-failure: permanent` proves there were no retries (an unknown failure
 * would be tried 5 times); this bound proves the pill is isolated quickly in a big batch (one handler call per
 * record took 27 s here: ADR 0018).
 */
const DEAD_LETTER_BOUND_MS = 5_000;

interface ReplayResult {
  replayed: string[];
  alreadyReplayed: string[];
  notFound: string[];
}

/**
 * B10 (poison pill) and the operator's dead-letter replay, on a distributed deployment (gateway, 2 ingest, 2 forms,
 * billing, orgs) on the shared e2e broker and database. The operator API is served by a second gateway of the same
 * deployment started with an `OPERATOR_TOKEN` (the harness's main gateway has none).
 */
describe('reliability: dead letters (distributed mode)', () => {
  let env: ScenarioCluster;
  let kafka: KafkaClient;
  let producer: Producer;
  let brokers: string[];
  const token = randomBytes(32).toString('base64url');
  let opsGateway: Promise<RunningProcess> | undefined;

  beforeAll(async () => {
    env = await startScenarioCluster(sharedBackends());
    brokers = env.backends.kafkaBrokers.split(',');
    kafka = new Kafka({ clientId: 'reliability-dead-letters', brokers, logLevel: logLevel.NOTHING });
    producer = await rawProducer(kafka);
  });
  afterAll(async () => {
    await producer?.disconnect();
    await env?.stop();
  });
  const restoreAll = async () => {
    for (const [name, p] of Object.entries(env.cluster.processes)) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) await env.cluster.restart(name);
    }
  };

  /** The gateway with the operator API; started on first use, so its `/healthz` gauge counts from then on. */
  const opsUrl = async () => {
    opsGateway ??= env.cluster.startExtraGateway('gateway-ops', { OPERATOR_TOKEN: token });
    return (await opsGateway).url;
  };
  const ops = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${await opsUrl()}/api/ops${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      signal: AbortSignal.timeout(60_000),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const replay = (selection: unknown) => ops<ReplayResult>(`/dead-letters/${TOPIC}/replay`, selection);
  const dlqCounts = async () =>
    (await ops<{ data: { topic: string; total: number; pending: number }[] }>('/dead-letters')).data.find(
      (c) => c.topic === TOPIC,
    );
  const dlqBounds = async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const [p] = await admin.fetchTopicOffsets(DLQ);
      return { low: BigInt(p?.low ?? 0), high: BigInt(p?.high ?? 0) };
    } finally {
      await admin.disconnect();
    }
  };
  /** The form's records of `ingest.submission.dlq` that `pick` selects, once there are at least `n` (bounded). */
  const lettersOf = async (formId: string, pick: (r: DlqRecord) => boolean, n: number, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await readDlqRecords(brokers, formId)).filter(pick);
      if (found.length >= n || Date.now() > deadline) return found;
      await sleep(500);
    }
  };
  const origin = (r: DlqRecord) => `${r.headers[DeadLetterHeader.partition]}@${r.headers[DeadLetterHeader.offset]}`;
  const fromPoison = (poison: Written[]) => {
    const at = new Set(poison.map((p) => `${p.partition}@${p.offset}`));
    return (r: DlqRecord) => at.has(origin(r));
  };

  it(
    'a poison pill under load: dead-lettered at once by every consumer, its partition keeps flowing, nothing acked lost',
    async () => {
      const form = await env.newForm('poison-pill');
      const { high: dlqStart } = await dlqBounds();
      const count = scale(1_000);
      const load = env.load(form, { count, connections: 20 });
      const poison: Written[] = [];
      try {
        // Two pairs of poison (not JSON, fails the schema) on the form's partition, a third and two thirds in.
        await untilFinished(load, count * 0.3);
        poison.push(...(await publishPoison(producer, form.id, `${form.id}-a`)));
        await untilFinished(load, count * 0.6);
        poison.push(...(await publishPoison(producer, form.id, `${form.id}-b`)));
        const ackedAtLastPoison = load.progress().acked;
        const letters = await lettersOf(form.id, fromPoison(poison), poison.length * GROUPS.length);
        const ledger = await load.done;
        const gateway = opsUrl(); // boots while the checker runs: its gauge counts the poison from its first reading
        const report = await checkLedger({
          scenario: form.scenario,
          ledger,
          readModel: form.readModel,
          formId: form.id,
          faultsEndedAt: 0,
          recoveryDeadlineMs: 60_000,
          readDlq: () => readSubmissionDlq(brokers, form.id),
        });
        await gateway;
        const deadLetterMs = letters.map(
          (l) =>
            Date.parse(l.headers[DeadLetterHeader.deadLetteredAt] ?? '') -
            (poison.find((p) => `${p.partition}@${p.offset}` === origin(l))?.ackedAt ?? 0),
        );
        const ackedAfterPoison = report.acked - ackedAtLastPoison;
        const { high: dlqEnd, low: dlqLow } = await dlqBounds();
        const counts = await dlqCounts();
        let gauge: number | undefined;
        for (const end = Date.now() + 30_000; gauge === undefined && Date.now() < end; await sleep(500)) {
          const health = (await (await fetch(`${await opsUrl()}/healthz`)).json()) as {
            deadLetters: { pending: Record<string, number> } | null;
          };
          gauge = health.deadLetters?.pending[TOPIC];
        }
        const listed = await ops<{ data: Record<string, unknown>[] }>(
          `/dead-letters/${TOPIC}?from=${dlqStart}&limit=50`,
        );
        printReport(report, {
          poison: poison.length,
          deadLetters: letters.length,
          maxDeadLetterMs: Math.max(...deadLetterMs),
          ackedAfterPoison,
          dlqPending: counts?.pending,
          healthzPending: gauge,
        });

        // Every poison message dead-lettered by every group, as a permanent failure, within seconds (no retries).
        expect(letters.map((l) => `${origin(l)} ${l.headers[DeadLetterHeader.group]}`).sort()).toEqual(
          poison.flatMap((p) => GROUPS.map((g) => `${p.partition}@${p.offset} ${g}`)).sort(),
        );
        for (const l of letters) {
          expect(l.headers[DeadLetterHeader.failure]).toBe('permanent');
          expect(l.headers[DeadLetterHeader.error]).toMatch(/is not JSON|does not match its schema/);
        }
        expect(Math.max(...deadLetterMs), 'ms from publishing a poison pill to its dead letter').toBeLessThan(
          DEAD_LETTER_BOUND_MS,
        );
        // Every acked submission stored once, none dead-lettered; the poison's partition (the form's: same key,
        // same partitioner) kept flowing: hundreds acked after the last pill are stored too.
        expectAllAcked(report);
        expectLedgerHolds(report, 60);
        expect(new Set(poison.map((p) => p.partition)).size).toBe(1);
        expect(ackedAfterPoison).toBeGreaterThan(count * 0.2);
        // Nothing but the poison was dead-lettered meanwhile; the operator API and /healthz count it.
        expect(dlqEnd - dlqStart).toBe(BigInt(poison.length * GROUPS.length));
        expect(counts?.total).toBe(Number(dlqEnd - dlqLow));
        expect(counts?.pending).toBeGreaterThanOrEqual(poison.length * GROUPS.length);
        expect(gauge).toBe(counts?.pending);
        expect(listed.data).toHaveLength(poison.length * GROUPS.length);
        for (const d of listed.data) {
          expect(d).toMatchObject({ topic: TOPIC, key: form.id, failure: 'permanent', replayed: false });
          expect(GROUPS).toContain(d.group);
        }
      } finally {
        await load.done;
      }
    },
    scenarioTimeout(240_000),
  );

  it(
    'dead letters replayed by the operator (one, a range, all) while a forms instance is killed -9: each stored once, a second replay changes nothing, poison goes back to the DLQ once',
    async () => {
      const form = await env.newForm('dlq-replay');
      // The API does not show a form's organization id; the form's own event on `forms.form` does.
      const [upserted] = (await readTopicRecords(brokers, Topics.formsForm, form.id)).map(
        (r) => decodeEvent(Topics.formsForm, r.value).data,
      );
      const orgId = upserted && 'orgId' in upserted ? upserted.orgId : '';
      expect(orgId).not.toBe('');
      const target = { id: form.id, orgId };
      const runId = `${form.scenario}-${randomBytes(4).toString('hex')}`;
      const keys = Array.from({ length: 30 }, (_, n) => ({ key: `${runId}-dead-${n}`, n }));

      // The DLQ, oldest first: 15 valid letters, a real poison pill's letters (by both groups), 15 valid letters.
      const poison = await publishPoison(producer, form.id, `${form.id}-r`);
      const partition = (poison[0] as Written).partition;
      const lost = { group: 'forms.submission-received', partition };
      const first = await plantDeadLetters(producer, target, keys.slice(0, 15), { ...lost, firstOffset: 9_000_000n });
      const poisonLetters = await lettersOf(form.id, fromPoison(poison), poison.length * GROUPS.length);
      expect(poisonLetters).toHaveLength(poison.length * GROUPS.length);
      const second = await plantDeadLetters(producer, target, keys.slice(15), { ...lost, firstOffset: 9_000_015n });
      const planted: PlantedLetter[] = [...first, ...second];
      const plantedOffsets = new Set(planted.map((p) => p.dlqOffset));

      // Real traffic on the same form (and partition) while the operator replays.
      const count = scale(400);
      const load = env.load(form, { count, connections: 10, ratePerSecond: 40 });
      let victim = 'forms-1';
      let holders: string[] = [];
      let killedAt = 0;
      const restart = { at: 0 };
      try {
        await untilFinished(load, 40);
        const one = await replay({ offsets: [(first[0] as PlantedLetter).dlqOffset] });
        // Kill the forms instance that holds the form's partition just as the range is put back on the topic.
        holders = await holdersOf(kafka, GROUPS[1] as string, TOPIC, partition);
        victim = ['forms-1', 'forms-2'].find((n) => holders.some((h) => h.endsWith(`-${n}`))) ?? victim;
        const range = await replay({
          from: (first[1] as PlantedLetter).dlqOffset,
          to: (first[14] as PlantedLetter).dlqOffset,
        });
        await kill9(env.proc(victim));
        killedAt = Date.now();
        const all = await replay({ all: true });
        await sleep(Math.max(0, killedAt + 5_000 - Date.now()));
        await env.cluster.restart(victim);
        restart.at = Date.now();

        expect(one).toEqual({ replayed: [first[0]?.dlqOffset], alreadyReplayed: [], notFound: [] });
        expect(range.replayed).toEqual(first.slice(1).map((p) => p.dlqOffset));
        expect(all.replayed).toEqual(expect.arrayContaining([...second.map((p) => p.dlqOffset)]));
        expect(all.replayed).toEqual(expect.arrayContaining(poisonLetters.map((l) => l.offset)));
        expect(all.alreadyReplayed).toEqual(expect.arrayContaining(first.map((p) => p.dlqOffset)));
        expect(all.replayed.filter((o) => first.some((p) => p.dlqOffset === o))).toEqual([]);

        // Every replayed submission in the read model exactly once, with the load's acked ones (the ledger).
        const plantedEntries: LedgerEntry[] = planted.map((p) => ({
          key: p.key,
          outcome: 'acked',
          id: p.submissionId,
          attempts: ['dead-letter'],
        }));
        const ledger = await load.done;
        const report = await checkLedger({
          scenario: form.scenario,
          ledger: { ...ledger, entries: [...ledger.entries, ...plantedEntries] },
          readModel: form.readModel,
          formId: form.id,
          faultsEndedAt: restart.at,
          recoveryDeadlineMs: 90_000,
          // The planted letters are in the DLQ on purpose; any other record of an acked id is a failure.
          readDlq: async () => (await readSubmissionDlq(brokers, form.id)).filter((d) => !plantedOffsets.has(d.offset)),
        });

        // The poison went back to the DLQ: once per consumer group per poison message, and no more after a while.
        const replayedPoison = new Set(poisonLetters.map((l) => l.offset));
        const again = (r: DlqRecord) => replayedPoison.has(r.headers[DeadLetterHeader.replayedFrom] ?? '');
        const expected = poison.length * GROUPS.length;
        const returned = await lettersOf(form.id, again, expected);
        await sleep(5_000);
        const returnedLater = (await readDlqRecords(brokers, form.id)).filter(again);

        // A second replay of the same letters: all already replayed, nothing appended, the read model unchanged.
        const secondOne = await replay({ offsets: [(first[0] as PlantedLetter).dlqOffset] });
        const secondRange = await replay({
          from: (first[1] as PlantedLetter).dlqOffset,
          to: (first[14] as PlantedLetter).dlqOffset,
        });
        // What "all" replayed, named by offset (at most 1,000 per request); the shared broker may hold other letters.
        const secondAll: ReplayResult = { replayed: [], alreadyReplayed: [], notFound: [] };
        for (let i = 0; i < all.replayed.length; i += 1_000) {
          const part = await replay({ offsets: all.replayed.slice(i, i + 1_000) });
          for (const k of ['replayed', 'alreadyReplayed', 'notFound'] as const) secondAll[k].push(...part[k]);
        }
        const { high: dlqBefore } = await dlqBounds();
        await sleep(3_000);
        const storedAfter = await form.readModel.listAll(form.id);
        const { high: dlqAfter } = await dlqBounds();

        printReport(report, {
          planted: planted.length,
          victim,
          holders: holders.join(','),
          replayedOne: one.replayed.length,
          replayedRange: range.replayed.length,
          replayedAll: all.replayed.length,
          poisonBack: returned.length,
          poisonBackLater: returnedLater.length,
          storedAfterSecondReplay: storedAfter.length,
        });
        expectLedgerHolds(report, 90);
        expect(report.unknown + report.unsent).toBe(0);
        expect(holders, `members of ${GROUPS[1]} holding partition ${partition}`).toHaveLength(1);
        expect(
          returned.map((r) => `${r.headers[DeadLetterHeader.group]} ${r.headers[DeadLetterHeader.failure]}`).sort(),
        ).toEqual(poison.flatMap(() => GROUPS.map((g) => `${g} permanent`)).sort());
        expect(returnedLater).toHaveLength(returned.length);
        expect(secondOne).toEqual({ replayed: [], alreadyReplayed: [first[0]?.dlqOffset], notFound: [] });
        expect(secondRange).toEqual({ replayed: [], alreadyReplayed: range.replayed, notFound: [] });
        expect(secondAll).toEqual({ replayed: [], alreadyReplayed: all.replayed, notFound: [] });
        expect(storedAfter.length).toBe(report.stored);
        expect(dlqAfter).toBe(dlqBefore);
      } finally {
        await load.done;
        await restoreAll();
      }
    },
    scenarioTimeout(300_000),
  );
});
