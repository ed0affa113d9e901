import { resolve } from 'node:path';
import { type Backend, resolveBackend, resolveS3 } from '@formgate/kit/testing/backends';

/**
 * Gives every e2e test a real Kafka broker, a real Mongo-wire server (see `resolveBackend`) and a real S3-compatible
 * server (`resolveS3`) through `KAFKA_BROKERS`, `MONGO_URL` and `S3_TEST_URL`. If one cannot be had, the run fails
 * with the reason; nothing is skipped.
 */
export default async function setup() {
  const runDir = resolve(import.meta.dirname, '../../.run/test');
  const started: Backend[] = [];
  const stopAll = async () => {
    await Promise.allSettled(started.map((b) => b.stop()));
  };
  try {
    const settled = await Promise.allSettled([
      resolveBackend('kafka', runDir),
      resolveBackend('mongo', runDir),
      resolveS3(runDir),
    ]);
    for (const r of settled) if (r.status === 'fulfilled') started.push(r.value);
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const [kafka, mongo, s3] = started as [Backend, Backend, Backend];
    process.env.KAFKA_BROKERS = kafka.value;
    process.env.MONGO_URL = mongo.value;
    process.env.S3_TEST_URL = s3.value;
    process.stderr.write(
      `e2e backends: Kafka ${kafka.value} (${kafka.source}), Mongo ${mongo.value} (${mongo.source}), ` +
        `S3 ${new URL(s3.value).host} (${s3.source})\n`,
    );
  } catch (err) {
    await stopAll();
    throw err;
  }
  return stopAll;
}
