import { describe, expect, it } from 'vitest';
import { parseResponse } from '../lib/p11.ts';
import { p11Goals } from '../lib/p11-goals.ts';
import type { P14Level, P14Result, P14Run } from '../lib/p14.ts';
import { p14Context, p14Goals } from '../lib/p14-goals.ts';

describe('P11: the raw client reads a whole answer', () => {
  it('waits for a Content-Length body, a chunked body’s last chunk, and sees Connection: close', () => {
    const head = 'HTTP/1.1 303 See Other\r\nLocation: /thanks\r\n';
    expect(parseResponse(`${head}Content-Length: 9\r\n\r\nSee Ot`)).toBeNull();
    expect(parseResponse(`${head}Content-Length: 9\r\n\r\nSee Other`)).toEqual({ status: 303, keepAlive: true });
    expect(parseResponse(`${head}Transfer-Encoding: chunked\r\n\r\n9\r\nSee Other\r\n`)).toBeNull();
    expect(parseResponse(`${head}Transfer-Encoding: chunked\r\n\r\n9\r\nSee Other\r\n0\r\n\r\n`)).toEqual({
      status: 303,
      keepAlive: true,
    });
    expect(parseResponse(`${head}Connection: close\r\nContent-Length: 0\r\n\r\n`)).toEqual({
      status: 303,
      keepAlive: false,
    });
  });
});

const round = (mbPer1000: number) => ({
  connections: 2000,
  rssBeforeKb: 0,
  rssAfterKb: mbPer1000 * 2048,
  mbPer1000,
  closedEarly: 0,
  failed: 0,
  openMs: 1,
});

describe('P11 rows', () => {
  it('judges each server on ΔRSS / ΔRSS(B0) of the same round, and fails one with an integrity problem', () => {
    const rows = p11Goals(
      [
        { server: 'B0', connections: 2000, rounds: [round(5), round(6), round(5)] },
        { server: 'ingest', connections: 2000, rounds: [round(6), round(7.2), round(20)] },
        { server: 'gateway', connections: 2000, rounds: [round(20), round(20), round(20)] },
      ],
      ['P11 gateway round 2: the server closed 3 of 2000 idle connections early'],
    );
    const ingest = rows.find((r) => r.goal === 'P11 (ingest)' && r.unit === 'ratio');
    expect(ingest?.median).toBeCloseTo(1.2);
    expect(ingest?.passesFloor).toBe(true);
    const gateway = rows.find((r) => r.goal === 'P11 (gateway)' && r.unit === 'ratio');
    expect(gateway?.passesFloor).toBe(false);
    expect(rows.find((r) => r.goal === 'P11 (B0)')?.median).toBe(5);
  });
});

const run = (rate: number, perSubmission: number, over: Partial<P14Run> = {}): P14Run => ({
  rate,
  seconds: 10,
  acknowledged: rate * 10,
  commands: new Map([
    ['p2-forms\u0000forms\u0000insert', rate * 10 * perSubmission * 0.25],
    ['p14-notifications\u0000notifications\u0000insert', rate * 10 * perSubmission * 0.75],
  ]),
  total: rate * 10 * perSubmission,
  perSubmission,
  produceRequestsPerSubmission: 0.05,
  pipelineMs: 11_000,
  deliveredRate: rate,
  sustained: true,
  settleMs: 2_000,
  windowMs: 15_000,
  delivery: {
    offered: rate * 10,
    failures: {},
    sendLagMs: 0,
    lost: 0,
    pending: 0,
    duplicates: 0,
    unexpected: 0,
    expected: rate * 20,
    received: rate * 20,
    hooksExpected: rate * 10,
    hooksReceived: rate * 10,
    hooksLost: 0,
    hooksPending: 0,
    hooksDuplicates: 0,
  },
  ...over,
});

describe('P14 rows', () => {
  const settings = { rates: [100, 1000], seconds: 10, idleSeconds: 5 };
  const idle = { seconds: 5, commands: new Map([['p2-gateway\u0000accounts\u0000aggregate', 10]]) };

  it('holds each rate to its bounds, and a rate measured lower than its goal to the bounds it reaches, saying so', () => {
    const levels: P14Level[] = [
      { goalRate: 100, rate: 100, rounds: [run(100, 2.5)] },
      {
        goalRate: 1000,
        rate: 150,
        probe: run(1000, 1.1, { sustained: false, deliveredRate: 169, pipelineMs: 59_000 }),
        rounds: [run(150, 2.6)],
      },
    ];
    const result: P14Result = { idle, levels, setupMs: 1 };
    const rows = p14Goals(result, settings, []);
    const [at100, at1000] = rows;
    const idleRow = rows.at(-1);
    expect(at100).toMatchObject({ target: { value: 1 }, floor: { value: 3 }, passesFloor: true, meetsTarget: false });
    expect(at1000).toMatchObject({ target: { value: 1 }, floor: { value: 3 }, passesFloor: true });
    expect(at1000?.note).toContain('1,000/s NOT sustained');
    expect(at1000?.note).toContain('measured at 150/s and held to the 100/s bounds');
    expect(idleRow?.median).toBe(2);
    // P6 at 1,000/s is read from the run at the rate offered (the probe), held to ≤ 0.1; at 100/s only reported.
    const p6 = rows.filter((r) => r.goal === 'P6');
    expect(
      p6.map((r) => [r.measure.match(/(\d[\d,]*)\/s offered/)?.[1], r.target?.value ?? null, r.meetsTarget]),
    ).toEqual([
      ['100', null, null],
      ['1000', 0.1, true],
    ]);
    const context = p14Context(result)[0]?.lines.join('\n') ?? '';
    expect(context).toContain('| p14-notifications | notifications | insert | 1.875 | 75.0 % |');
  });

  it('fails a rate above its floor, and one whose deliveries are incomplete', () => {
    const levels: P14Level[] = [
      { goalRate: 100, rate: 100, rounds: [run(100, 3.2)] },
      { goalRate: 1000, rate: 1000, rounds: [run(1000, 0.5)] },
    ];
    const rows = p14Goals({ idle, levels, setupMs: 1 }, settings, [
      'P14 at 1000/s round 1: 3 mails and 0 webhooks never arrived',
    ]);
    expect(rows.map((r) => [r.goal, r.passesFloor])).toEqual([
      ['P14', false],
      ['P14', false],
      ['P6', null],
      ['P6', null],
      ['P14', null],
    ]);
  });
});
