import type { BusMessage, OutgoingMessage } from './event-bus.ts';
import type { FailureClass } from './failure.ts';

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
