import { randomUUID } from 'node:crypto';
import { dlqTopic, Topics } from '@formgate/contracts';
import { Kafka, logLevel } from 'kafkajs';
import type { DlqEntry } from './types.ts';

const TOPIC = dlqTopic(Topics.ingestSubmission);

/**
 * Reads `ingest.submission.dlq` from the beginning to its current end, directly from the broker, and returns the
 * records keyed by `formId` (a submission's key is its form id). Bounded by `timeoutMs`; a throwaway consumer group.
 */
export async function readSubmissionDlq(brokers: string[], formId: string, timeoutMs = 30_000): Promise<DlqEntry[]> {
  const kafka = new Kafka({ clientId: 'reliability-dlq', brokers, logLevel: logLevel.NOTHING, retry: { retries: 3 } });
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `reliability.dlq.${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 200 });
  try {
    const ends = new Map<number, bigint>();
    for (const o of await admin.fetchTopicOffsets(TOPIC)) {
      if (BigInt(o.high) > BigInt(o.low)) ends.set(o.partition, BigInt(o.high));
    }
    if (ends.size === 0) return [];
    const out: DlqEntry[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`reading ${TOPIC} did not reach its end within ${timeoutMs} ms`)),
        timeoutMs,
      );
      consumer
        .run({
          eachMessage: async ({ partition, message }) => {
            if (message.key?.toString() === formId) out.push(toEntry(message));
            const end = ends.get(partition);
            if (end !== undefined && BigInt(message.offset) + 1n >= end) ends.delete(partition);
            if (ends.size === 0) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
    return out;
  } finally {
    await consumer.disconnect().catch(() => {});
    await admin.deleteGroups([groupId]).catch(() => {});
    await admin.disconnect();
  }
}

function toEntry(message: { value: Buffer | null; offset: string; headers?: Record<string, unknown> }): DlqEntry {
  const header = (name: string) => String(message.headers?.[name] ?? '');
  let submissionId = '(undecodable)';
  try {
    const event = JSON.parse(message.value?.toString() ?? '') as { data?: { submissionId?: string } };
    submissionId = event.data?.submissionId ?? submissionId;
  } catch {}
  return { submissionId, group: header('x-group'), error: header('x-error'), offset: message.offset };
}
