import type { SubmissionRecord } from './records.ts';

const byCreatedThenId = (x: SubmissionRecord, y: SubmissionRecord) =>
  x.createdAt === y.createdAt ? (x.id < y.id ? -1 : x.id > y.id ? 1 : 0) : x.createdAt < y.createdAt ? -1 : 1;

/**
 * A batch as the adapters store it: distinct by id, grouped by form, each form's records oldest first by
 * (`createdAt`, `id`) — the order in which they get positions.
 */
export function groupByForm(records: SubmissionRecord[]) {
  const groups = new Map<string, { formId: string; orgId: string; records: SubmissionRecord[] }>();
  for (const r of new Map(records.map((x) => [x.id, x] as const)).values()) {
    const group = groups.get(r.formId) ?? { formId: r.formId, orgId: r.orgId, records: [] };
    group.records.push(r);
    groups.set(r.formId, group);
  }
  return [...groups.values()].map((g) => ({ ...g, records: g.records.sort(byCreatedThenId) }));
}
