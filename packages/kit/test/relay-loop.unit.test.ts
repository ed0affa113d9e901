import { describe, expect, it } from 'vitest';
import { createRelayLoop } from '../src/relay-loop.ts';

/** A pass that waits until released, recording what it saw when it started. */
function gatedPasses() {
  const starts: number[] = [];
  const gates: (() => void)[] = [];
  let written = 0;
  const pass = async () => {
    starts.push(written);
    await new Promise<void>((resolve) => gates.push(resolve));
    return false;
  };
  const release = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()?.();
  };
  const write = () => {
    written += 1;
  };
  return { starts, pass, release, write };
}

describe('relay loop', () => {
  it('a kick during a run resolves only after a run that started after the kick', async () => {
    const p = gatedPasses();
    const loop = createRelayLoop({ pass: p.pass, intervalMs: 3_600_000, onError: () => {} });
    const first = loop.kick();
    p.write();
    let done = false;
    const second = loop.kick().then(() => {
      done = true;
    });
    await p.release();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    await p.release();
    await second;
    expect(p.starts).toEqual([0, 1]);
  });

  it('joins every kick during a run into one more run', async () => {
    const p = gatedPasses();
    const loop = createRelayLoop({ pass: p.pass, intervalMs: 3_600_000, onError: () => {} });
    void loop.kick();
    const kicks = [loop.kick(), loop.kick(), loop.kick()];
    await p.release();
    await p.release();
    await Promise.all(kicks);
    expect(p.starts).toHaveLength(2);
  });

  it('stop waits for the run in flight and the one asked for after it', async () => {
    const p = gatedPasses();
    const loop = createRelayLoop({ pass: p.pass, intervalMs: 3_600_000, onError: () => {} });
    void loop.start();
    void loop.kick();
    let stopped = false;
    const stopping = loop.stop().then(() => {
      stopped = true;
    });
    await p.release();
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    await p.release();
    await stopping;
    expect(p.starts).toHaveLength(2);
  });

  it('reports a failed pass and runs again on the next kick', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const loop = createRelayLoop({
      pass: async () => {
        calls += 1;
        if (calls === 1) throw new Error('store down');
        return false;
      },
      intervalMs: 3_600_000,
      onError: (err) => errors.push(err),
    });
    await loop.kick();
    await loop.kick();
    expect([calls, errors.length]).toEqual([2, 1]);
  });
});
