import { randomUUID } from 'node:crypto';
import { dlqTopic, Topics } from '@formgate/contracts';
import { Kafka, logLevel } from 'kafkajs';
import type { DlqEntry } from './types.ts';

const TOPIC = dlqTopic(Topics.ingestSubmission);

/** A record as the broker holds it (of `ingest.submission.dlq`: the dead letter and every header the bus wrote). */
export interface DlqRecord {
  offset: string;
  key: string;
  value: string;
  headers: Record<string, string>;
  /** Broker timestamp (ms). */
  timestamp: number;
}

/**
 * Reads `ingest.submission.dlq` from the beginning to its current end, directly from the broker, and returns the
 * records keyed by `formId` (a submission's key is its form id). Bounded by `timeoutMs`; a throwaway consumer group.
 */
export async function readSubmissionDlq(brokers: string[], formId: string, timeoutMs = 30_000): Promise<DlqEntry[]> {
  return (await readDlqRecords(brokers, formId, timeoutMs)).map(toEntry);
}

/** The raw records of `ingest.submission.dlq` keyed by `formId`, in offset order (see `readSubmissionDlq`). */
export function readDlqRecords(brokers: string[], formId: string, timeoutMs = 30_000): Promise<DlqRecord[]> {
  return readTopicRecords(brokers, TOPIC, formId, timeoutMs);
}

/** The records of `topic` with key `key`, from its first retained one to its end when called, in offset order. */
export async function readTopicRecords(
  brokers: string[],
  topic: string,
  key: string,
  timeoutMs = 30_000,
): Promise<DlqRecord[]> {
  const kafka = new Kafka({ clientId: 'reliability-dlq', brokers, logLevel: logLevel.NOTHING, retry: { retries: 3 } });
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `reliability.dlq.${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 200 });
  try {
    const ends = new Map<number, bigint>();
    for (const o of await admin.fetchTopicOffsets(topic)) {
      if (BigInt(o.high) > BigInt(o.low)) ends.set(o.partition, BigInt(o.high));
    }
    if (ends.size === 0) return [];
    const out: DlqRecord[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`reading ${topic} did not reach its end within ${timeoutMs} ms`)),
        timeoutMs,
      );
      consumer
        .run({
          eachMessage: async ({ partition, message }) => {
            if (message.key?.toString() === key) out.push(toRecord(message));
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
    return out.sort((a, b) => Number(BigInt(a.offset) - BigInt(b.offset)));
  } finally {
    await consumer.disconnect().catch(() => {});
    await admin.deleteGroups([groupId]).catch(() => {});
    await admin.disconnect();
  }
}

function toRecord(message: {
  key: Buffer | null;
  value: Buffer | null;
  offset: string;
  timestamp: string;
  headers?: Record<string, unknown>;
}): DlqRecord {
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(message.headers ?? {})) {
    const last = Array.isArray(v) ? v.at(-1) : v;
    if (last !== undefined) headers[name] = String(last);
  }
  return {
    offset: message.offset,
    key: message.key?.toString() ?? '',
    value: message.value?.toString() ?? '',
    headers,
    timestamp: Number(message.timestamp),
  };
}

function toEntry(record: DlqRecord): DlqEntry {
  let submissionId = '(undecodable)';
  try {
    const event = JSON.parse(record.value) as { data?: { submissionId?: string } };
    submissionId = event.data?.submissionId ?? submissionId;
  } catch {}
  return {
    submissionId,
    group: record.headers['x-group'] ?? '',
    error: record.headers['x-error'] ?? '',
    offset: record.offset,
  };
}
