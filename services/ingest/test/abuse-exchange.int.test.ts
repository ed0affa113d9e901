import { mkdtempSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBus } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import {
  DEFAULT_SPAM_SETTINGS,
  decodeEvent,
  encodeEvent,
  type Form,
  TOPIC_SPECS,
  type TopicEvent,
  Topics,
} from '@formgate/contracts';
import { createLogger, systemIds } from '@formgate/kit';
import { eventually } from '@formgate/kit/testing';
import { openSqlite } from '@formgate/store/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { type AbuseExchange, createAbuseExchange } from '../src/abuse/abuse-exchange.ts';
import type { LayerFinding } from '../src/spam/layer.ts';
import { createRateLimitLayer, ipKeyer, type RateLimitLayer, SlidingWindowCounter } from '../src/spam/rate-limit.ts';
import { createLocalUsedSolutions } from '../src/spam/used-solutions.ts';

/** A fixed clock that tests move: every instance reads the same time. */
const clock = { t: Date.UTC(2026, 10, 24, 12, 0, 10), now: () => new Date(clock.t) };
const logger = createLogger({ level: 'silent', name: 'ingest' });
const form = { id: 'form-1', orgId: 'org-1' } as Form;

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

async function openBus(): Promise<EventBus> {
  const bus = createSqliteBus(openSqlite(join(mkdtempSync(join(tmpdir(), 'fg-abuse-')), 'bus.db')), {
    idlePollMs: 20,
  });
  await bus.ensureTopics(TOPIC_SPECS);
  closers.push(() => bus.close());
  return bus;
}

interface Instance {
  name: string;
  layer: RateLimitLayer;
  solutions: ReturnType<typeof createLocalUsedSolutions>;
  exchange: AbuseExchange;
}

async function instance(bus: Pick<EventBus, 'publish' | 'replay'>, name: string, follow = true): Promise<Instance> {
  const layer = createRateLimitLayer({ ipKey: ipKeyer('a key shared by the instances, 32+') });
  const solutions = createLocalUsedSolutions(clock.now);
  const exchange = createAbuseExchange({
    bus,
    clock,
    ids: systemIds,
    logger,
    instance: name,
    counter: layer.counter,
    solutions,
    follow,
    intervalMs: 60_000, // the tests flush by hand
  });
  await exchange.start();
  closers.push(() => exchange.stop());
  return { name, layer, solutions, exchange };
}

const limited = (perFormPerMinute: number, perIpPerMinute = 0) => ({
  ...DEFAULT_SPAM_SETTINGS,
  rateLimit: { perIpPerMinute, perFormPerMinute, perOrgPerMinute: 0 },
});
const submit = (i: Instance, settings = limited(5), clientIp = '203.0.113.9') =>
  (i.layer.check({ form, settings, req: {} as IncomingMessage, clientIp, now: clock.now() }) as LayerFinding).verdict;

async function reports(bus: EventBus) {
  const out: TopicEvent<typeof Topics.ingestAbuse>[] = [];
  await (await bus.replay(Topics.ingestAbuse, (m) => out.push(decodeEvent(Topics.ingestAbuse, m.value)))).stop();
  return out;
}

describe('abuse exchange between ingest instances (on the embedded log)', () => {
  it('a per-form limit holds across two instances once they exchanged a report', async () => {
    const bus = await openBus();
    const a = await instance(bus, 'ingest-a');
    const b = await instance(bus, 'ingest-b');
    for (let n = 0; n < 4; n++) expect(submit(a)).toBe('pass');
    await a.exchange.flush();
    await eventually(() => expect(b.layer.counter.estimate('form', form.id, clock.t)).toBe(4));
    expect(submit(b)).toBe('pass');
    expect(submit(b)).toBe('block');
    // A learns of B's one too; its own report is not counted twice.
    await b.exchange.flush();
    await eventually(() => expect(a.layer.counter.estimate('form', form.id, clock.t)).toBe(5));
    expect(submit(a)).toBe('block');
  });

  it('per-IP counts travel as keyed hashes: never the address in clear, and they match on the other instance', async () => {
    const bus = await openBus();
    const a = await instance(bus, 'ingest-a');
    const b = await instance(bus, 'ingest-b');
    expect(submit(a, limited(0, 1), '198.51.100.23')).toBe('pass');
    await a.exchange.flush();
    const [report] = await reports(bus);
    expect(JSON.stringify(report)).not.toContain('198.51.100.23');
    expect(report?.data.rate).toEqual([
      expect.objectContaining({ scope: 'ip', count: 1, minute: '2026-11-24T12:00:00.000Z' }),
    ]);
    await eventually(() => expect(submit(b, limited(0, 1), '198.51.100.23')).toBe('block'));
    expect(submit(b, limited(0, 1), '198.51.100.24')).toBe('pass');
  });

  it('an ALTCHA proof accepted by one instance is refused by the other', async () => {
    const bus = await openBus();
    const a = await instance(bus, 'ingest-a');
    const b = await instance(bus, 'ingest-b');
    const expiresAt = new Date(clock.t + 600_000);
    expect(a.solutions.claim('proof-1', expiresAt)).toBe(true);
    await a.exchange.flush();
    await eventually(() => expect(b.solutions.claim('proof-1', expiresAt)).toBe(false));
    expect(b.solutions.claim('proof-2', expiresAt)).toBe(true);
  });

  it('a restarted instance reads the retained reports: counts still in the window weigh, stale ones do not', async () => {
    const bus = await openBus();
    const stale = {
      id: 'stale-report',
      type: 'abuse.report' as const,
      version: 1 as const,
      occurredAt: new Date(clock.t - 180_000).toISOString(),
      data: {
        instance: 'ingest-old',
        rate: [{ scope: 'form' as const, key: form.id, minute: '2026-11-24T11:57:00.000Z', count: 50 }],
        altchaUsed: [],
        blocked: [],
      },
    };
    const fresh = {
      ...stale,
      id: 'fresh-report',
      occurredAt: clock.now().toISOString(),
      data: {
        ...stale.data,
        rate: [{ scope: 'form' as const, key: form.id, minute: '2026-11-24T12:00:00.000Z', count: 3 }],
      },
    };
    await bus.publish(Topics.ingestAbuse, [
      { key: 'ingest-old', value: encodeEvent(Topics.ingestAbuse, stale) },
      { key: 'ingest-old', value: encodeEvent(Topics.ingestAbuse, fresh) },
      { key: 'junk', value: '{"not":"a report"}' },
    ]);
    const b = await instance(bus, 'ingest-b');
    expect(b.layer.counter.estimate('form', form.id, clock.t)).toBe(3);
  });

  it('blocked requests are counted per form, layer, rule and minute; embedded mode publishes only them', async () => {
    const bus = await openBus();
    const only = await instance(bus, 'embedded', false);
    expect(submit(only, limited(1))).toBe('pass');
    only.exchange.countBlocked(form, 'rate-limit', 'per-form');
    only.exchange.countBlocked(form, 'rate-limit', 'per-form');
    only.exchange.countBlocked(form, 'origin', 'origin-not-allowed');
    only.solutions.claim('proof', new Date(clock.t + 60_000));
    await only.exchange.flush();
    const [report, ...more] = await reports(bus);
    expect(more).toEqual([]);
    expect(report?.data.rate).toEqual([]);
    expect(report?.data.altchaUsed).toEqual([]);
    expect(report?.data.blocked).toEqual([
      {
        formId: form.id,
        orgId: form.orgId,
        layer: 'rate-limit',
        rule: 'per-form',
        minute: '2026-11-24T12:00:00.000Z',
        count: 2,
      },
      {
        formId: form.id,
        orgId: form.orgId,
        layer: 'origin',
        rule: 'origin-not-allowed',
        minute: '2026-11-24T12:00:00.000Z',
        count: 1,
      },
    ]);
    // Nothing new: nothing published.
    await only.exchange.flush();
    expect(await reports(bus)).toHaveLength(1);
  });

  it('a report the log refused is published again with the same id, before anything newer', async () => {
    const bus = await openBus();
    let refuse = true;
    const flaky = {
      replay: bus.replay.bind(bus),
      publish: async (topic: string, messages: { key: string; value: string }[]) => {
        if (refuse) throw new Error('log unavailable');
        return bus.publish(topic, messages);
      },
    };
    const a = await instance(flaky, 'ingest-a', false);
    a.exchange.countBlocked(form, 'rate-limit', 'per-ip');
    await a.exchange.flush();
    expect(await reports(bus)).toEqual([]);
    refuse = false;
    a.exchange.countBlocked(form, 'rate-limit', 'per-org');
    await a.exchange.flush();
    const published = await reports(bus);
    expect(published.map((r) => r.data.blocked.map((b) => b.rule))).toEqual([['per-ip'], ['per-org']]);
  });

  it('a big report is split so that each record stays small', async () => {
    const bus = await openBus();
    const a = await instance(bus, 'ingest-a');
    for (let n = 0; n < 4_500; n++) submit(a, limited(0, 1), `10.0.${n >> 8}.${n & 255}`);
    await a.exchange.flush();
    const published = await reports(bus);
    expect(published.map((r) => r.data.rate.length)).toEqual([2_000, 2_000, 500]);
    expect(new Set(published.map((r) => r.id)).size).toBe(3);
  });

  it('the counters forget minutes that no longer weigh', () => {
    const counter = new SlidingWindowCounter();
    counter.add('form', 'f', clock.t);
    expect(counter.estimate('form', 'f', clock.t + 120_000)).toBe(0);
  });
});
