import { z } from 'zod';
import { defineConfig } from '../config.ts';

const port = z.coerce.number().int().min(1).max(65535);

/**
 * What the test support reads from the test run's environment: the backends a developer or the e2e global setup
 * points at (each started otherwise), the ports of the local ones, and the vitest worker's id. Call it where the
 * value is needed, not at import: the global setup exports `KAFKA_BROKERS` and `MONGO_URL` once it has them.
 */
export const loadTestRunConfig = defineConfig(
  z.object({
    KAFKA_BROKERS: z.string().optional(),
    MONGO_URL: z.string().optional(),
    STRIPE_API_URL: z.string().optional(),
    /** An S3-compatible server for the object store's tests: `http://<access key>:<secret>@host:port`. */
    S3_TEST_URL: z.url().optional(),
    TEST_SEAWEEDFS_PORT: port.default(29333),
    TEST_KAFKA_PORT: port.default(29192),
    TEST_FERRETDB_PORT: port.default(29217),
    /** A stripe-mock shared by the files running at once, left running (see `startStripeMock`). */
    TEST_STRIPE_MOCK_PORT: port.optional(),
    VITEST_POOL_ID: z.coerce.number().int().optional(),
  }),
);

/** The environment of an `infra/local` script: this process's, with the test's run directory. */
export const scriptEnv = (runDir: string): NodeJS.ProcessEnv => ({ ...process.env, FORMGATE_RUN_DIR: runDir });
