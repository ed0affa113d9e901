import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { loadTestRunConfig, scriptEnv } from './config.ts';
import { freePort } from './ports.ts';

const run = promisify(execFile);
const LOCAL = resolve(import.meta.dirname, '../../../../infra/local');

export interface Backend {
  /** `KAFKA_BROKERS=…` / `MONGO_URL=…` value for the tests. */
  value: string;
  source: 'environment' | 'testcontainers' | 'local';
  stop: () => Promise<void>;
}

async function dockerAnswers(): Promise<boolean> {
  try {
    await run('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

async function localScript(script: string, port: number, runDir: string): Promise<Backend> {
  const env = scriptEnv(runDir);
  await run('bash', [`${LOCAL}/${script}`, 'install'], { env, timeout: 15 * 60_000, maxBuffer: 16 << 20 });
  const { stdout } = await run('bash', [`${LOCAL}/${script}`, 'start', String(port)], { env, timeout: 5 * 60_000 });
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return {
    value: last.slice(last.indexOf('=') + 1),
    source: 'local',
    stop: async () => {
      await run('bash', [`${LOCAL}/${script}`, 'stop', String(port)], { env, timeout: 60_000 });
    },
  };
}

/**
 * A single-node Kafka of the test's own on `port` (infra/local), for tests that stop and start a broker without
 * disturbing the one other tests share. `start()` starts it again on the same data after `stop()`.
 */
export async function ownLocalKafka(port: number, runDir: string): Promise<Backend & { start(): Promise<void> }> {
  const backend = await localScript('kafka.sh', port, runDir);
  const env = scriptEnv(runDir);
  return {
    ...backend,
    start: async () =>
      void (await run('bash', [`${LOCAL}/kafka.sh`, 'start', String(port)], { env, timeout: 5 * 60_000 })),
  };
}

async function kafkaContainer(): Promise<Backend> {
  const { KafkaContainer } = await import('@testcontainers/kafka');
  const container = await new KafkaContainer('confluentinc/cp-kafka:7.9.0').withKraft().start();
  return {
    value: `${container.getHost()}:${container.getMappedPort(9093)}`,
    source: 'testcontainers',
    stop: async () => void (await container.stop()),
  };
}

async function mongoContainer(): Promise<Backend> {
  const { MongoDBContainer } = await import('@testcontainers/mongodb');
  const container = await new MongoDBContainer('mongo:7').start();
  return {
    value: `${container.getConnectionString()}/?directConnection=true`,
    source: 'testcontainers',
    stop: async () => void (await container.stop()),
  };
}

/**
 * Resolves one backend: the environment variable if set, else a container when a Docker engine answers, else
 * the project's own local provisioning (`infra/local`). Throws — never skips — when none can be had.
 */
export async function resolveBackend(kind: 'kafka' | 'mongo', runDir: string): Promise<Backend> {
  const envName = kind === 'kafka' ? 'KAFKA_BROKERS' : 'MONGO_URL';
  const config = loadTestRunConfig();
  const fromEnv = config[envName];
  if (fromEnv) return { value: fromEnv, source: 'environment', stop: async () => {} };
  const attempts: string[] = [];
  if (await dockerAnswers()) {
    try {
      return await (kind === 'kafka' ? kafkaContainer() : mongoContainer());
    } catch (err) {
      attempts.push(`testcontainers: ${(err as Error).message}`);
    }
  } else {
    attempts.push('testcontainers: no Docker engine answers');
  }
  try {
    return kind === 'kafka'
      ? await localScript('kafka.sh', config.TEST_KAFKA_PORT, runDir)
      : await localScript('ferretdb.sh', config.TEST_FERRETDB_PORT, runDir);
  } catch (err) {
    const e = err as { message: string; stderr?: string };
    attempts.push(`infra/local: ${e.stderr?.trim().split('\n').slice(-8).join('\n') || e.message}`);
  }
  throw new Error(
    `Could not start ${kind === 'kafka' ? 'Apache Kafka' : 'a Mongo-wire server'} for the e2e tests. ` +
      `Set ${envName}, run a Docker engine, or fix local provisioning.\n${attempts.join('\n')}`,
  );
}

/**
 * A FerretDB of the test's own on `port` (never the shared one other tests use), for tests that stop and start
 * their database: `stop()` and `start()` keep its data.
 */
export async function dedicatedFerretDb(port: number, runDir: string) {
  const env = scriptEnv(runDir);
  const script = (command: 'start' | 'stop') =>
    run('bash', [`${LOCAL}/ferretdb.sh`, command, String(port)], { env, timeout: 120_000 });
  await script('start');
  return {
    url: `mongodb://127.0.0.1:${port}/`,
    start: async () => void (await script('start')),
    stop: async () => void (await script('stop')),
  };
}

/**
 * A SeaweedFS of the test's own on `port` (never the shared one other tests use), for tests that take their object
 * store down: `stop()` and `start()` keep its data. `url` is `http://<key>:<secret>@127.0.0.1:<port>`.
 */
export async function dedicatedSeaweedFs(port: number, runDir: string) {
  const env = scriptEnv(runDir);
  const script = (command: 'start' | 'stop') =>
    run('bash', [`${LOCAL}/seaweedfs.sh`, command, String(port)], { env, timeout: 180_000 });
  const started = await script('start');
  const url =
    started.stdout
      .trim()
      .split('\n')
      .at(-1)
      ?.replace(/^S3_TEST_URL=/, '') ?? '';
  if (!url.startsWith('http')) throw new Error(`seaweedfs.sh start printed no S3_TEST_URL: ${started.stdout}`);
  return {
    url,
    start: async () => void (await script('start')),
    stop: async () => void (await script('stop')),
  };
}

/**
 * A stripe-mock (Stripe's API mock, `infra/local/stripe-mock.sh`) for a test file: `STRIPE_API_URL` from the
 * environment if set; else one of its own on a free port, stopped by `stop()`; or, with `TEST_STRIPE_MOCK_PORT`, the
 * one on that port (started if needed, shared by the files running at once, so left running: `stripe-mock.sh stop
 * <port>`). stripe-mock is stateless, so sharing one is harmless. Throws — never skips — when it cannot be had.
 */
export async function startStripeMock(runDir: string): Promise<Backend> {
  const config = loadTestRunConfig();
  if (config.STRIPE_API_URL) return { value: config.STRIPE_API_URL, source: 'environment', stop: async () => {} };
  const fixed = config.TEST_STRIPE_MOCK_PORT;
  const port = fixed ?? (await freePort());
  try {
    const backend = await localScript('stripe-mock.sh', port, runDir);
    return fixed ? { ...backend, stop: async () => {} } : backend;
  } catch (err) {
    const e = err as { message: string; stderr?: string };
    throw new Error(
      'Could not start stripe-mock for the Stripe tests. Set STRIPE_API_URL, or fix local provisioning ' +
        `(infra/local/stripe-mock.sh install needs Go and the Go module proxy).\n` +
        (e.stderr?.trim().split('\n').slice(-8).join('\n') || e.message),
    );
  }
}

/**
 * An S3-compatible object store for the e2e tier: `S3_TEST_URL` (`http://<access key>:<secret>@host:port`) from the
 * environment if set; else SeaweedFS of the project's own provisioning (`infra/local/seaweedfs.sh`, built from its Go
 * module) on `TEST_SEAWEEDFS_PORT`. Throws — never skips — when none can be had.
 */
export async function resolveS3(runDir: string): Promise<Backend> {
  const config = loadTestRunConfig();
  if (config.S3_TEST_URL) return { value: config.S3_TEST_URL, source: 'environment', stop: async () => {} };
  try {
    return await localScript('seaweedfs.sh', config.TEST_SEAWEEDFS_PORT, runDir);
  } catch (err) {
    const e = err as { message: string; stderr?: string };
    throw new Error(
      'Could not start an S3-compatible server for the e2e tests. Set S3_TEST_URL, or fix local provisioning ' +
        `(infra/local/seaweedfs.sh install needs Go and the Go module proxy).\n` +
        (e.stderr?.trim().split('\n').slice(-8).join('\n') || e.message),
    );
  }
}
