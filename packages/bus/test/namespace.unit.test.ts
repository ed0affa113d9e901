import { dlqReplayedTopic, MAX_TOPIC_PREFIX_LENGTH, TOPIC_SPECS } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { createNamespace } from '../src/kafka/namespace.ts';

describe('Kafka deployment namespace (KAFKA_TOPIC_PREFIX)', () => {
  it('prefixes topics and groups; empty keeps the logical names', () => {
    const ns = createNamespace('staging.');
    expect(ns.topic('forms.form')).toBe('staging.forms.form');
    expect(ns.group('notifications.submissions')).toBe('staging.notifications.submissions');
    expect(createNamespace().topic('forms.form')).toBe('forms.form');
  });

  it('the longest allowed prefix keeps every physical topic name within Kafka’s 249 characters', () => {
    const ns = createNamespace('p'.repeat(MAX_TOPIC_PREFIX_LENGTH));
    const longest = Math.max(...TOPIC_SPECS.map((s) => ns.topic(dlqReplayedTopic(s.name)).length));
    expect(longest).toBe(249);
    expect(() => createNamespace('p'.repeat(MAX_TOPIC_PREFIX_LENGTH + 1))).toThrow(/at most/);
  });

  it.each(['staging/', 'a b', 'prod:', 'é.'])('refuses %j', (prefix) => {
    expect(() => createNamespace(prefix)).toThrow(/Kafka topic characters/);
  });
});
