import { topicPrefixProblem } from '@formgate/contracts';
import { z } from 'zod';
import { brokersEnv, commonEnv, metricsPortEnv, previousSecretEnv, secretEnv } from './config.ts';

/** Environment every distributed service process reads (each adds its own keys). */
export const serviceEnv = {
  ...commonEnv,
  PORT: z.coerce.number().int().min(0).max(65535),
  HOST: z.string().default('0.0.0.0'),
  METRICS_PORT: metricsPortEnv,
  KAFKA_BROKERS: brokersEnv,
  /**
   * The deployment's namespace on a shared Kafka cluster (ADR 53): put in front of every topic and consumer group id
   * on the broker (e.g. `staging.`), so several deployments share one cluster. Default empty: the plain names.
   */
  KAFKA_TOPIC_PREFIX: z
    .string()
    .default('')
    .superRefine((v, ctx) => {
      const problem = topicPrefixProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  /** How long a publish waits for Kafka's acknowledgement before the caller is told the log is unavailable. */
  KAFKA_PUBLISH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3_000),
  MONGO_URL: z.string().regex(/^mongodb(\+srv)?:\/\//, 'expected a mongodb:// URL'),
  /** Databases are `<prefix>_<service>`: one per service, several deployments per server. */
  MONGO_DB_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,32}$/)
    .default('formgate'),
  /** Shared with the gateway: verifies the identity it forwards. */
  IDENTITY_SECRET: secretEnv,
  /** During a rotation (ADR 50): the replaced `IDENTITY_SECRET`, verifying only; remove once every gateway rolled. */
  IDENTITY_SECRET_PREVIOUS: previousSecretEnv,
  /** Distinguishes instances in logs and Kafka client ids; defaults to the pid. */
  INSTANCE_ID: z
    .string()
    .regex(/^[\w.-]{1,64}$/)
    .default(`${process.pid}`),
};
