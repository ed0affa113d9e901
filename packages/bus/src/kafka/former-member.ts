import type { Kafka } from 'kafkajs';
import type { OnError } from './client.ts';
import { clusterOf } from './group-start.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Between two tries while the broker is away. */
const RETRY_MS = 500;
/** The coordinator's answers that say the member is gone already. */
const GONE = new Set(['UNKNOWN_MEMBER_ID', 'GROUP_ID_NOT_FOUND']);

/**
 * Sends a LeaveGroup for the member a crashed consumer was: kafkajs 2.2.4 restarts a crashed consumer as a new member
 * (its `disconnect()` could not leave while the broker was away), and the group's next rebalance would wait for the
 * former member's session to expire (10 s) before any partition is delivered again. Tried every 0.5 s until the
 * coordinator answers (the broker is back) or `stopped()`; a member already gone is fine.
 */
export function createFormerMemberLeave(kafka: Kafka, onError: OnError) {
  const tryOnce = async (groupId: string, memberId: string) => {
    const cluster = clusterOf(kafka);
    try {
      await cluster.connect();
      await (await cluster.findGroupCoordinator({ groupId })).leaveGroup({ groupId, memberId });
    } finally {
      await cluster.disconnect().catch(() => {});
    }
  };
  return async (groupId: string, memberId: string, stopped: () => boolean) => {
    while (!stopped()) {
      try {
        await tryOnce(groupId, memberId);
        return;
      } catch (err) {
        if (GONE.has((err as { type?: string }).type ?? '')) return;
        if ((err as { retriable?: boolean }).retriable === false && (err as { type?: string }).type) {
          return void onError(err, `cannot remove the former member of ${groupId}; it leaves with its session`);
        }
      }
      await sleep(RETRY_MS);
    }
  };
}
