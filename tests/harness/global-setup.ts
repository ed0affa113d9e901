import { resolve } from 'node:path';
import { type Backend, resolveBackend } from '@formgate/kit/testing/backends';

/**
 * Gives every e2e test a real Kafka broker and a real Mongo-wire server (see `resolveBackend`) through
 * `KAFKA_BROKERS` and `MONGO_URL`. If either cannot be had, the run fails with the reason; nothing is skipped.
 */
export default async function setup() {
  const runDir = resolve(import.meta.dirname, '../../.run/test');
  const started: Backend[] = [];
  const stopAll = async () => {
    await Promise.allSettled(started.map((b) => b.stop()));
  };
  try {
    const [kafka, mongo] = await Promise.all([resolveBackend('kafka', runDir), resolveBackend('mongo', runDir)]);
    started.push(kafka, mongo);
    process.env.KAFKA_BROKERS = kafka.value;
    process.env.MONGO_URL = mongo.value;
    process.stderr.write(
      `e2e backends: Kafka ${kafka.value} (${kafka.source}), Mongo ${mongo.value} (${mongo.source})\n`,
    );
  } catch (err) {
    await stopAll();
    throw err;
  }
  return stopAll;
}
