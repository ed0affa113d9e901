import type { MongoDb } from '@formgate/store/mongo';
import { type BlockedCounts, blockedIncrements } from '../blocked-counts.ts';
import { Collections } from './schema.ts';

/** One per form: its blocked requests per UTC day, and the reports counted last (a redelivery counts nothing). */
interface BlockedDoc {
  _id: string;
  orgId: string;
  days: Record<string, number>;
  recent: string[];
}

/** How many counted report ids a form's document remembers (far more than a redelivered batch holds). */
const RECENT = 500;

/**
 * `BlockedCounts` on MongoDB / FerretDB 1.24 (no transactions, conditional updates are a read then a write): one
 * document per form, read by `_id` (the only index FerretDB 1.24 uses), written only by the single consumer of
 * `ingest.abuse`. Each form's document remembers the reports it counted, so a report redelivered after a call cut
 * short counts only on the forms it had not reached. A form's document goes with the form (`purgeDeletedForm`,
 * `purgeOrganization`). Every read and write is by `_id`.
 */
export function createMongoBlockedCounts(db: MongoDb): BlockedCounts {
  const blocked = db.collection<BlockedDoc>(Collections.blockedCounts);
  const mine = async (orgId: string, formId: string) => {
    const doc = await blocked.findOne({ _id: formId }, { projection: { orgId: 1, days: 1 } });
    return doc && doc.orgId === orgId ? doc : null;
  };
  const inRange = (days: Record<string, number>, fromDay: string, toDay: string) =>
    Object.entries(days).filter(([day, n]) => day >= fromDay && day <= toDay && n > 0);
  return {
    async recordBlocked(reportId, counts) {
      const byForm = new Map<string, ReturnType<typeof blockedIncrements>>();
      for (const c of blockedIncrements(counts)) byForm.set(c.formId, [...(byForm.get(c.formId) ?? []), c]);
      for (const [formId, incs] of byForm) {
        const current = await blocked.findOne({ _id: formId }, { projection: { orgId: 1, recent: 1 } });
        if (current?.recent?.includes(reportId)) continue;
        // A form id is unique across organizations: a count reported under another organization is ignored.
        const ours = incs.filter((c) => !current || c.orgId === current.orgId);
        if (ours.length === 0) continue;
        const $inc: Record<string, number> = {};
        for (const c of ours) $inc[`days.${c.day}`] = ($inc[`days.${c.day}`] ?? 0) + c.n;
        await blocked.updateOne(
          { _id: formId },
          {
            $inc,
            $push: { recent: { $each: [reportId], $slice: -RECENT } },
            $setOnInsert: { orgId: (ours[0] as { orgId: string }).orgId },
          },
          { upsert: true },
        );
      }
    },
    async getBlockedTotals(scope, formIds, fromDay, toDay) {
      const result = new Map<string, number>();
      await Promise.all(
        formIds.map(async (formId) => {
          const doc = await mine(scope.orgId, formId);
          const sum = inRange(doc?.days ?? {}, fromDay, toDay).reduce((s, [, n]) => s + n, 0);
          if (sum > 0) result.set(formId, sum);
        }),
      );
      return result;
    },
    async getBlockedDays(scope, formId, fromDay, toDay) {
      const doc = await mine(scope.orgId, formId);
      return inRange(doc?.days ?? {}, fromDay, toDay)
        .map(([day, blocked]) => ({ day, blocked }))
        .sort((a, b) => (a.day < b.day ? -1 : 1));
    },
  };
}
