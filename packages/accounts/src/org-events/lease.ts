import type { Clock } from '@formgate/kit';
import { LEASE_MODEL, type OutboxAdapter } from './schema.ts';

interface LeaseRow {
  id: string;
  generation: number;
  holder: string;
  expiresAt: number;
}

export interface RelayLeaseOptions {
  /** This relay's id, unique per process. */
  holder: string;
  clock: Clock;
  /** How long a renewal keeps other relays out. */
  leaseMs: number;
  /**
   * How long before the lease's expiry the holder stops relaying: the largest clock difference between gateways
   * (plus the time one publish takes) for which only one relay publishes at a time.
   */
  marginMs: number;
}

export type RelayLease = ReturnType<typeof createRelayLease>;

/**
 * The right to relay the organization event outbox, for one gateway at a time. Taking it only ever inserts a row
 * with a new id (`relay-lease-<generation>`), which is atomic on SQLite, MongoDB and FerretDB alike: two relays
 * that saw the same expired generation race for the same id and one gets a duplicate-key error. A conditional
 * update would not do: FerretDB 1.24 runs `findAndModify` as a read and then a write of the whole document by id,
 * so two relays could both "win" one row. Only the holder writes its own row afterwards (renewals, the release),
 * so those updates have nobody to race with.
 *
 * The holder relays until `renewal start + leaseMs − marginMs` by its own clock; another relay takes over once
 * its clock passes `renewal start + leaseMs`. A renewal that completes after the holder's deadline does not count
 * (another relay may have read the row before it landed): the holder then competes for the next generation like
 * anyone else, without waiting for its own row to expire.
 */
export function createRelayLease(adapter: OutboxAdapter, o: RelayLeaseOptions) {
  let held: { id: string; generation: number; until: number } | undefined;
  const now = () => o.clock.now().getTime();
  const latest = async () =>
    (
      await adapter.findMany<LeaseRow>({
        model: LEASE_MODEL,
        sortBy: { field: 'generation', direction: 'desc' },
        limit: 1,
      })
    )[0];

  const renew = async (h: NonNullable<typeof held>) => {
    const start = now();
    const row = await adapter.update<LeaseRow>({
      model: LEASE_MODEL,
      where: [
        { field: 'id', value: h.id },
        { field: 'holder', value: o.holder },
      ],
      update: { expiresAt: start + o.leaseMs },
    });
    if (row && now() < h.until) h.until = start + o.leaseMs - o.marginMs;
    else held = undefined;
  };

  const take = async () => {
    const start = now();
    const current = await latest();
    // Its own row (a renewal that came too late) it may follow at once: the insert still decides.
    if (current && current.expiresAt >= start && current.holder !== o.holder) return;
    const generation = (current?.generation ?? 0) + 1;
    const id = `relay-lease-${generation}`;
    try {
      await adapter.create({
        model: LEASE_MODEL,
        data: { id, generation, holder: o.holder, expiresAt: start + o.leaseMs },
        forceAllowId: true,
      });
    } catch (err) {
      // Another relay inserted this generation first (the duplicate-key error differs per backend).
      if (((await latest())?.generation ?? 0) >= generation) return;
      throw err;
    }
    // A relay that read an old generation, slept, and inserted it after it was cleaned up is not the holder.
    if ((await latest())?.generation !== generation || now() >= start + o.leaseMs - o.marginMs) return;
    held = { id, generation, until: start + o.leaseMs - o.marginMs };
    await adapter.deleteMany({
      model: LEASE_MODEL,
      where: [{ field: 'generation', operator: 'lt', value: generation }],
    });
  };

  /** Whether the lease is held and its deadline (by this relay's clock) has not passed. */
  const valid = () => held !== undefined && now() < held.until;

  return {
    valid,
    /** Renews the lease if held, else takes it if it expired; resolves to whether this relay may publish now. */
    async hold(): Promise<boolean> {
      if (held) await renew(held);
      if (!held) await take();
      return valid();
    },
    /** Lets another relay take over at once (its next poll) instead of after the expiry. */
    async release(): Promise<void> {
      const h = held;
      held = undefined;
      if (!h) return;
      await adapter.update({
        model: LEASE_MODEL,
        where: [
          { field: 'id', value: h.id },
          { field: 'holder', value: o.holder },
        ],
        update: { expiresAt: 0 },
      });
    },
  };
}
