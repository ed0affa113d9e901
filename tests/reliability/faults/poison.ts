import { DeadLetterHeader } from '@formgate/bus';
import { dlqTopic, encodeEvent, type SubmissionReceived, Topics } from '@formgate/contracts';
import { systemIds } from '@formgate/kit';
import { AssignerProtocol, type Kafka, Partitioners, type Producer } from 'kafkajs';

/** A record this harness wrote straight to the broker: where it landed and when the broker acknowledged it. */
export interface Written {
  label: string;
  partition: number;
  offset: string;
  ackedAt: number;
}

/** kafkajs producer with the partitioner the bus uses, so a record keyed by a form id lands where ingest puts it. */
export async function rawProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  return producer;
}

/**
 * Poison pills for `ingest.submission`, keyed by `formId` (so on the partition of that form's submissions): a
 * record that is not JSON, and a well-formed `submission.received` envelope whose data fails the schema. Every
 * consumer of the topic must dead-letter them at once (permanent failure, `EVENT_INVALID`).
 */
export async function publishPoison(producer: Producer, formId: string, tag: string): Promise<Written[]> {
  const envelope = {
    id: `poison-${tag}`,
    type: 'submission.received',
    version: 1,
    occurredAt: new Date().toISOString(),
    // No orgId, no receivedAt, `fields` not a list: fails SubmissionReceivedSchema.
    data: { submissionId: `poison-${tag}`, formId, fields: 'not a list' },
  };
  const records = [
    { label: 'not-json', value: `{"id":"poison-${tag}-raw", not json` },
    { label: 'bad-schema', value: JSON.stringify(envelope) },
  ];
  const out: Written[] = [];
  // One send per record, so each has its own acknowledgement time.
  for (const r of records) {
    const [meta] = await producer.send({
      topic: Topics.ingestSubmission,
      acks: -1,
      messages: [{ key: formId, value: r.value }],
    });
    if (!meta) throw new Error('no record metadata from the broker');
    out.push({ label: r.label, partition: meta.partition, offset: meta.baseOffset ?? '', ackedAt: Date.now() });
  }
  return out;
}

/** A `submission.received` event exactly as ingest builds it for a JSON post with an `Idempotency-Key`. */
export function submissionEvent(form: { id: string; orgId: string }, key: string, n: number): SubmissionReceived {
  const submissionId = systemIds.derived(form.id, key);
  const receivedAt = new Date().toISOString();
  return {
    id: submissionId,
    type: 'submission.received',
    version: 1,
    occurredAt: receivedAt,
    data: {
      submissionId,
      formId: form.id,
      orgId: form.orgId,
      receivedAt,
      fields: [
        { name: 'ledger', value: key },
        { name: 'n', value: String(n) },
        { name: 'message', value: 'reliability dead letter' },
      ],
      files: [],
      meta: {},
      spam: { isSpam: false, reasons: [] },
      held: false,
      idempotencyKey: key,
    },
  };
}

export interface PlantedLetter {
  key: string;
  submissionId: string;
  dlqOffset: string;
}

/**
 * Appends valid `submission.received` events to `ingest.submission.dlq` with the headers the bus writes for a dead
 * letter, as if `group` had given up on them (an earlier bug): what an operator would replay. `origin` gives each
 * the partition and a made-up original offset (distinct per letter).
 */
export async function plantDeadLetters(
  producer: Producer,
  form: { id: string; orgId: string },
  entries: { key: string; n: number }[],
  origin: { group: string; partition: number; firstOffset: bigint },
): Promise<PlantedLetter[]> {
  const deadLetteredAt = new Date().toISOString();
  const events = entries.map((e) => submissionEvent(form, e.key, e.n));
  const [meta] = await producer.send({
    topic: dlqTopic(Topics.ingestSubmission),
    acks: -1,
    messages: events.map((event, i) => ({
      key: form.id,
      value: encodeEvent(Topics.ingestSubmission, event),
      headers: {
        [DeadLetterHeader.error]: 'simulated: the store refused the batch 5 times (an earlier bug)',
        [DeadLetterHeader.group]: origin.group,
        [DeadLetterHeader.partition]: String(origin.partition),
        [DeadLetterHeader.offset]: String(origin.firstOffset + BigInt(i)),
        [DeadLetterHeader.failure]: 'unknown',
        [DeadLetterHeader.deadLetteredAt]: deadLetteredAt,
      },
    })),
  });
  if (!meta?.baseOffset) throw new Error('no record metadata from the broker');
  const base = BigInt(meta.baseOffset);
  return events.map((event, i) => ({
    key: entries[i]?.key as string,
    submissionId: event.data.submissionId,
    dlqOffset: String(base + BigInt(i)),
  }));
}

/** The clientIds of the members of `group` that are assigned `partition` of `topic` (kafkajs' MemberAssignment). */
export async function holdersOf(kafka: Kafka, group: string, topic: string, partition: number): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([group]);
    const members = groups[0]?.members ?? [];
    return members
      .filter((m) => {
        const decoded = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
        return decoded?.assignment[topic]?.includes(partition) ?? false;
      })
      .map((m) => m.clientId);
  } finally {
    await admin.disconnect();
  }
}
