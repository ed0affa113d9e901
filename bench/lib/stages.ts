import { parsePrometheusText, type Sample, sumOf } from '@formgate/kit/testing';

/** The counters a stage budget is computed from, summed over every process scraped. */
interface StageSnapshot {
  stages: Record<string, number>;
  accepted: number;
  ingest: { sum: number; count: number };
  gateway: { sum: number; count: number };
}

const STAGES = ['parse', 'spam', 'append'] as const;
const DURATION = 'formgate_http_request_duration_seconds';

async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return parsePrometheusText(await res.text());
}

/** Reads the stage counters of every process behind `urls` (their `/metrics`). */
export async function snapshotStages(urls: readonly string[]): Promise<StageSnapshot> {
  const all = (await Promise.all(urls.map(scrape))).flat();
  const route = (service: string) => ({ service, route: '/f/:key', method: 'POST' });
  return {
    stages: Object.fromEntries(
      STAGES.map((stage) => [stage, sumOf(all, 'formgate_ingest_stage_seconds_total', { stage })]),
    ),
    accepted:
      sumOf(all, 'formgate_ingest_submissions_total', { outcome: 'accepted' }) +
      sumOf(all, 'formgate_ingest_submissions_total', { outcome: 'spam' }),
    ingest: {
      sum: sumOf(all, `${DURATION}_sum`, route('ingest')),
      count: sumOf(all, `${DURATION}_count`, route('ingest')),
    },
    gateway: {
      sum: sumOf(all, `${DURATION}_sum`, route('gateway')),
      count: sumOf(all, `${DURATION}_count`, route('gateway')),
    },
  };
}

/**
 * Microseconds per accepted submission of each stage between two snapshots: ingest's `parse`, `spam` and `append`
 * (`formgate_ingest_stage_seconds_total`), `answer` (the rest of ingest's time from the request's arrival in its
 * handler to the answer sent: routing, the form lookup, writing the answer) and, where a gateway forwards to ingest
 * over HTTP, `proxy hop` (the gateway's time for `POST /f/:key` less ingest's). Wall-clock time, so a stage that
 * waits (the append waits for its group commit) counts its wait.
 */
export function stageCosts(before: StageSnapshot, after: StageSnapshot): Record<string, number> | null {
  const accepted = after.accepted - before.accepted;
  if (accepted <= 0) return null;
  const us = (seconds: number, n: number) => (seconds / n) * 1e6;
  const costs: Record<string, number> = {};
  for (const stage of STAGES) costs[stage] = us((after.stages[stage] ?? 0) - (before.stages[stage] ?? 0), accepted);
  const ingestCount = after.ingest.count - before.ingest.count;
  const ingestMean = ingestCount > 0 ? us(after.ingest.sum - before.ingest.sum, ingestCount) : null;
  if (ingestMean !== null) costs.answer = Math.max(0, ingestMean - STAGES.reduce((t, s) => t + (costs[s] ?? 0), 0));
  const gatewayCount = after.gateway.count - before.gateway.count;
  if (gatewayCount > 0 && ingestMean !== null) {
    costs['proxy hop'] = Math.max(0, us(after.gateway.sum - before.gateway.sum, gatewayCount) - ingestMean);
  }
  return costs;
}
