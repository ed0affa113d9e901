/** What burst.ts hands the P7 load generator (as JSON in BENCH_BURST_INPUT). */
export interface BurstClientInput {
  url: string;
  path: string;
  contentType: string;
  bodyBase64: string;
  amount: number;
  connections: number;
  formId: string;
  token: string;
  countTimeoutMs: number;
}

export interface BurstClientResult {
  sent: number;
  statuses: Record<string, number>;
  /** Socket errors and timeouts as autocannon counted them. */
  errors: number;
  timeouts: number;
  ids: string[];
  /** From the first request to the last response, ms. */
  burstMs: number;
  /** From the last response until the dashboard count reached `ids.length`; null if it never did. */
  countLagMs: number | null;
  lastCountSeen: number;
}

export const BURST_PREFIX = 'BURSTJSON ';
