import type { BusMessage } from '@formgate/bus';
import { Topics } from '@formgate/contracts';

/** A submission event as the bus hands it to a consumer, at `offset` of `partition`. */
export const recordOf = (
  { key, value }: Pick<BusMessage, 'key' | 'value'>,
  partition: number,
  offset: number,
): BusMessage => ({
  topic: Topics.ingestSubmission,
  partition,
  offset: String(offset),
  key,
  value,
  headers: {},
  timestamp: Date.now(),
});
