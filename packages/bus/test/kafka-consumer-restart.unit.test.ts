import { EventEmitter } from 'node:events';
import type { Consumer, Kafka } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { type ConsumerState, createConsumerFactory } from '../src/kafka/consumer.ts';

/** A kafkajs consumer reduced to its events: the test emits the CRASH kafkajs would. */
function fakeKafka() {
  const emitter = new EventEmitter();
  const consumer = {
    events: { CRASH: 'consumer.crash', GROUP_JOIN: 'consumer.group_join' },
    on: (event: string, listener: (e: unknown) => void) => emitter.on(event, listener),
  } as unknown as Consumer;
  const kafka = { consumer: () => consumer } as unknown as Kafka;
  const crash = (restart: boolean) =>
    emitter.emit('consumer.crash', { payload: { error: new Error('Failed to find group coordinator'), restart } });
  const join = (memberId: string) => emitter.emit('consumer.group_join', { payload: { memberId } });
  return { kafka, crash, join };
}

const until = async (check: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('a Kafka consumer kafkajs does not restart after a crash', () => {
  it('is relaunched by its subscription, again after a failed relaunch, and never once it is stopping', async () => {
    const { kafka, crash } = fakeKafka();
    const errors: string[] = [];
    const newConsumer = createConsumerFactory(kafka, {
      onError: (_err, context) => errors.push(context),
      maxRestarts: Number.POSITIVE_INFINITY,
    });
    let relaunches = 0;
    const state: ConsumerState = { crashes: 0, stopping: false };
    newConsumer('g', state);
    state.relaunch = async () => {
      relaunches++;
      // The broker still down on the first try: the relaunch fails and is tried again after a pause.
      if (relaunches === 1) throw new Error('ECONNREFUSED');
    };
    // What kafkajs restarts itself is left to it.
    crash(true);
    await new Promise((r) => setTimeout(r, 50));
    expect(relaunches).toBe(0);
    // A non-retriable crash (KafkaJSGroupCoordinatorNotFound while the broker was down).
    crash(false);
    await until(() => relaunches === 2);
    expect(errors).toEqual(['consumer g crashed; restarting it', 'consumer g could not restart']);
    // A second crash while stopping: no relaunch.
    state.stopping = true;
    crash(false);
    await new Promise((r) => setTimeout(r, 1_200));
    expect(relaunches).toBe(2);
  });

  it('removes the member a crashed consumer was from its group, restarted by kafkajs or not, never when stopping', async () => {
    const { kafka, crash, join } = fakeKafka();
    const left: string[] = [];
    const newConsumer = createConsumerFactory(kafka, {
      onError: () => {},
      maxRestarts: Number.POSITIVE_INFINITY,
      leaveFormer: async (groupId, memberId) => void left.push(`${groupId}/${memberId}`),
    });
    const state: ConsumerState = { crashes: 0, stopping: false, relaunch: async () => {} };
    newConsumer('g', state);
    join('m-1');
    crash(true);
    crash(true); // no member joined since: nothing more to remove
    join('m-2');
    crash(false);
    join('m-3');
    state.stopping = true;
    crash(false);
    expect(left).toEqual(['g/m-1', 'g/m-2']);
  });

  it('gives up after maxRestarts consecutive crashes, saying so', async () => {
    const { kafka, crash } = fakeKafka();
    const errors: string[] = [];
    const newConsumer = createConsumerFactory(kafka, {
      onError: (_e, context) => errors.push(context),
      maxRestarts: 1,
    });
    const state: ConsumerState = { crashes: 0, stopping: false };
    newConsumer('g', state);
    let relaunches = 0;
    state.relaunch = async () => {
      relaunches++;
      throw new Error('ECONNREFUSED');
    };
    crash(false);
    await until(() => errors.includes('consumer g stopped consuming'));
    expect(relaunches).toBe(1);
  });
});
