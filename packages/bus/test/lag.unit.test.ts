import type { ConsumerGroupSpec } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { type ConsumerLag, groupsCaughtUp } from '../src/index.ts';

const groups: ConsumerGroupSpec[] = [
  { group: 'a', topic: 'ingest.submission' },
  { group: 'b', topic: 'forms.submission' },
];

/** A bus whose `lag` answers each call with the next scripted rows (the last one again when they run out). */
function scripted(...answers: ConsumerLag[][]) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    lag: async () => answers[Math.min(calls++, answers.length - 1)] ?? [],
  };
}

const row = (group: string, topic: string, partition: number, committed: number | null, end: number) => ({
  group,
  topic,
  partition,
  committed: committed === null ? null : String(committed),
  end: String(end),
  lag: end - (committed ?? 0),
});

describe('groupsCaughtUp', () => {
  it('waits until every group has committed up to the end its partition had when asked', async () => {
    const bus = scripted(
      [row('a', 'ingest.submission', 0, 5, 10), row('b', 'forms.submission', 1, 3, 3)],
      [row('a', 'ingest.submission', 0, 8, 12), row('b', 'forms.submission', 1, 3, 4)],
      // Past the first end (10), behind the new one (14): caught up with what was there.
      [row('a', 'ingest.submission', 0, 10, 14), row('b', 'forms.submission', 1, 3, 6)],
    );
    await expect(groupsCaughtUp(bus, groups, { timeoutMs: 5_000, pollMs: 1 })).resolves.toBe(true);
    expect(bus.calls).toBe(3);
  });

  it('tells groups apart on the same partition number of different topics', async () => {
    // Group `b` is at 3 on its partition 0; `a`'s partition 0 ends at 10. Keyed by partition alone, `b` would wait
    // for 10 and never get there.
    const bus = scripted([row('b', 'forms.submission', 0, 3, 3), row('a', 'ingest.submission', 0, 10, 10)]);
    await expect(groupsCaughtUp(bus, groups, { timeoutMs: 50, pollMs: 1 })).resolves.toBe(true);
  });

  it('counts a group that never committed as behind only when its partition held something', async () => {
    const empty = scripted([row('a', 'ingest.submission', 0, null, 0)], [row('a', 'ingest.submission', 0, null, 2)]);
    await expect(groupsCaughtUp(empty, groups, { timeoutMs: 50, pollMs: 1 })).resolves.toBe(true);
    const held = scripted([row('a', 'ingest.submission', 0, null, 4)]);
    await expect(groupsCaughtUp(held, groups, { timeoutMs: 30, pollMs: 1 })).resolves.toBe(false);
  });

  it('answers false when the deadline passes first', async () => {
    const bus = scripted([row('a', 'ingest.submission', 0, 1, 9)]);
    const started = Date.now();
    await expect(groupsCaughtUp(bus, groups, { timeoutMs: 40, pollMs: 5 })).resolves.toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
  });
});
