import type { FailureClass } from '@formgate/contracts';
import type { BusMessage, DeadLetter, OutgoingMessage } from './event-bus.ts';

/** Headers a dead letter carries besides the original record's own. */
export const DeadLetterHeader = {
  error: 'x-error',
  group: 'x-group',
  partition: 'x-partition',
  offset: 'x-offset',
  failure: 'x-failure',
  deadLetteredAt: 'x-dead-lettered-at',
  replayedFrom: 'x-replayed-from',
} as const;

const MAX_ERROR_CHARS = 500;

/** The record appended to `<topic>.dlq` for `message`, which group `group` could not handle. */
export function deadLetterRecord(
  message: BusMessage,
  error: unknown,
  failure: Exclude<FailureClass, 'transient'>,
  group: string,
): OutgoingMessage {
  return {
    key: message.key,
    value: message.value,
    headers: {
      ...message.headers,
      [DeadLetterHeader.error]: String((error as Error)?.message ?? error).slice(0, MAX_ERROR_CHARS),
      [DeadLetterHeader.group]: group,
      [DeadLetterHeader.partition]: String(message.partition),
      [DeadLetterHeader.offset]: message.offset,
      [DeadLetterHeader.failure]: failure,
      [DeadLetterHeader.deadLetteredAt]: new Date().toISOString(),
    },
  };
}

const OWN_HEADERS = new Set<string>(Object.values(DeadLetterHeader));

/** `headers` without the ones dead-lettering and replaying added. */
export function originalHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !OWN_HEADERS.has(name)));
}

/** Reads a record of `<topic>.dlq` back. */
export function toDeadLetter(topic: string, record: BusMessage, replayed: boolean): DeadLetter {
  const h = record.headers;
  const at = Date.parse(h[DeadLetterHeader.deadLetteredAt] ?? '');
  return {
    dlqOffset: record.offset,
    topic,
    partition: Number(h[DeadLetterHeader.partition] ?? 0),
    offset: h[DeadLetterHeader.offset] ?? '',
    group: h[DeadLetterHeader.group] ?? '',
    error: h[DeadLetterHeader.error] ?? '',
    failure: h[DeadLetterHeader.failure] === 'permanent' ? 'permanent' : 'unknown',
    deadLetteredAt: Number.isNaN(at) ? record.timestamp : at,
    key: record.key,
    value: record.value,
    headers: originalHeaders(h),
    replayed,
  };
}

/** The record that puts a dead letter back on its topic. */
export function replayRecord(record: BusMessage): OutgoingMessage {
  return {
    key: record.key,
    value: record.value,
    headers: { ...originalHeaders(record.headers), [DeadLetterHeader.replayedFrom]: record.offset },
  };
}
