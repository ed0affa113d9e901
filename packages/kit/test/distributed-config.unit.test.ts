import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineConfig } from '../src/config.ts';
import { serviceEnv } from '../src/distributed-config.ts';

/** What every distributed process reads (each service adds its own keys). */
const load = defineConfig(z.object(serviceEnv));
const env = { PORT: '0', KAFKA_BROKERS: '127.0.0.1:9092', MONGO_URL: 'mongodb://db/', IDENTITY_SECRET: 'x'.repeat(32) };

describe('KAFKA_TOPIC_PREFIX in every distributed process’s config', () => {
  it('defaults to empty (the plain topic names) and keeps a valid prefix', () => {
    expect(load(env).KAFKA_TOPIC_PREFIX).toBe('');
    expect(load({ ...env, KAFKA_TOPIC_PREFIX: 'e2e-1a2b.' }).KAFKA_TOPIC_PREFIX).toBe('e2e-1a2b.');
  });

  it('stops the boot on a prefix Kafka cannot name topics with, or one too long', () => {
    expect(() => load({ ...env, KAFKA_TOPIC_PREFIX: 'staging/' })).toThrow(/KAFKA_TOPIC_PREFIX: only Kafka topic/);
    expect(() => load({ ...env, KAFKA_TOPIC_PREFIX: 'p'.repeat(300) })).toThrow(/KAFKA_TOPIC_PREFIX: at most/);
  });
});
