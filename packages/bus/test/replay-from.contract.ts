import { randomUUID } from 'node:crypto';
import type { TopicSpec } from '@formgate/contracts';
import { type ContractIt, eventually } from '@formgate/kit/testing';
import { expect } from 'vitest';
import type { BusMessage, EventBus, LogPositions, Subscription } from '../src/event-bus.ts';

export interface ReplayFromContext {
  bus: () => EventBus;
  /** Stopped after the suite. */
  subs: Subscription[];
  wait: number;
}

const spec = (): TopicSpec => ({ name: `contract.${randomUUID().slice(0, 8)}`, partitions: 2, compacted: false });
const msg = (key: string, value: string) => ({ key, value });

/** One past the last record of each partition in `seen`, over `start`: where a reader that saw them resumes. */
const after = (start: LogPositions, seen: BusMessage[]): LogPositions => ({
  ...start,
  ...Object.fromEntries(seen.map((m) => [m.partition, String(BigInt(m.offset) + 1n)])),
});

/** `replay()` from the log end and from positions (`ReplayOptions.from`): how a live reader follows and resumes. */
export function replayFromCases(it: ContractIt, ctx: ReplayFromContext) {
  it('replay() from the end passes nothing that existed, names every partition’s start, and follows new records', async () => {
    const topic = spec();
    const bus = ctx.bus();
    await bus.ensureTopics([topic]);
    await bus.publish(topic.name, [msg('a', 'old-a'), msg('b', 'old-b'), msg('c', 'old-c')]);
    const seen: string[] = [];
    const live = await bus.replay(topic.name, (m) => seen.push(m.value), { from: 'end' });
    ctx.subs.push(live);
    expect(Object.keys(live.start).sort()).toEqual(['0', '1']);
    expect(Object.values(live.start).reduce((n, o) => n + Number(o), 0)).toBe(3);
    const unnamed: string[] = [];
    ctx.subs.push(await bus.replay(topic.name, (m) => unnamed.push(m.value), { from: {} }));
    await bus.publish(topic.name, [msg('a', 'new-a'), msg('b', 'new-b')]);
    await eventually(() => expect([...seen].sort()).toEqual(['new-a', 'new-b']), ctx.wait);
    await eventually(() => expect([...unnamed].sort()).toEqual(['new-a', 'new-b']), ctx.wait);
  });

  it('replay() from positions resumes after what a reader saw: nothing lost while it was away, nothing twice', async () => {
    const topic = spec();
    const bus = ctx.bus();
    await bus.ensureTopics([topic]);
    const seen: BusMessage[] = [];
    const first = await bus.replay(topic.name, (m) => seen.push(m), { from: 'end' });
    await bus.publish(topic.name, [msg('a', 'a1'), msg('b', 'b1'), msg('c', 'c1')]);
    await eventually(() => expect(seen).toHaveLength(3), ctx.wait);
    await first.stop();
    const cursor = after(first.start, seen);
    await bus.publish(topic.name, [msg('a', 'a2'), msg('b', 'b2')]);
    const resumed: string[] = [];
    const second = await bus.replay(topic.name, (m) => resumed.push(m.value), { from: cursor });
    ctx.subs.push(second);
    expect(second.start).toEqual(cursor);
    expect([...resumed].sort()).toEqual(['a2', 'b2']);
    await bus.publish(topic.name, [msg('c', 'c3')]);
    await eventually(() => expect([...resumed].sort()).toEqual(['a2', 'b2', 'c3']), ctx.wait);
  });

  it('replay() from positions outside the retained records starts within them', async () => {
    const topic = spec();
    const bus = ctx.bus();
    await bus.ensureTopics([topic]);
    await bus.publish(topic.name, [msg('a', 'a1'), msg('b', 'b1')]);
    const seen: string[] = [];
    const far = { 0: '1000000', 1: '1000000' };
    const replay = await bus.replay(topic.name, (m) => seen.push(m.value), { from: far });
    ctx.subs.push(replay);
    expect(Object.values(replay.start).reduce((n, o) => n + Number(o), 0)).toBe(2);
    expect(seen).toEqual([]);
    await bus.publish(topic.name, [msg('a', 'a2')]);
    await eventually(() => expect(seen).toEqual(['a2']), ctx.wait);
  });
}
