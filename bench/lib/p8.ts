import { randomUUID } from 'node:crypto';
import { encodeCursor, type SubmissionRecord } from '@formgate/forms';
import type { BenchForm } from './formgate-api.ts';
import { PAYLOADS } from './payloads.ts';
import type { FormgateTarget } from './targets.ts';

export interface P8Settings {
  /** Submissions seeded into the measured form (P8's target is 1,000,000). */
  submissions: number;
  /** Other forms of the same organization, each seeded with `submissions / 20`. */
  otherForms: number;
  /** Requests per kind (first page, deep page, count) and round; p95 over them. */
  samples: number;
}

/** A seeded form and what a correct answer looks like. */
export interface P8Seed {
  form: BenchForm;
  seedMs: number;
  /** The deep page's cursor: the position of the submission at 90 % depth. */
  deepCursor: string;
  /** The id the deep page must start with. */
  deepFirstId: string;
}

/** One round of P8 in one mode: p95 latencies through the gateway, ms. */
export interface P8Round {
  firstP95Ms: number;
  deepP95Ms: number;
  countP95Ms: number;
}

const BATCH = 5_000;
const FIELDS = [...new URLSearchParams(PAYLOADS.urlencoded.body.toString())].map(([name, value]) => ({ name, value }));

function record(formId: string, orgId: string, i: number): SubmissionRecord {
  return {
    id: randomUUID(),
    formId,
    orgId,
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 100).toISOString(),
    fields: FIELDS,
    files: [],
    spam: { isSpam: false, reasons: [] },
    held: false,
  };
}

/**
 * Creates the P8 form (and the other forms) through the API and seeds them through the forms store's batch write
 * path (`insertSubmissions`, 5,000 a call): seconds instead of the hours HTTP would take. Returns the deep cursor,
 * taken from the stored position of the submission at 90 % depth.
 */
export async function seedP8(target: FormgateTarget, s: P8Settings): Promise<P8Seed> {
  const { store, close } = await target.openFormsStore();
  try {
    const started = performance.now();
    const seed = async (formId: string, n: number) => {
      let deepId = '';
      const deepIndex = n - 1 - Math.floor(n * 0.9);
      for (let i = 0; i < n; i += BATCH) {
        const batch = Array.from({ length: Math.min(BATCH, n - i) }, (_, j) => record(formId, target.api.orgId, i + j));
        deepId = batch[deepIndex - i]?.id ?? deepId;
        await store.insertSubmissions(batch);
      }
      return deepId;
    };
    for (let k = 0; k < s.otherForms; k++) {
      await seed((await target.api.createForm(`P8 other ${k}`)).id, Math.floor(s.submissions / 20));
    }
    const form = await target.api.createForm('P8');
    const deepId = await seed(form.id, s.submissions);
    const seedMs = performance.now() - started;
    const deep = await store.getSubmission({ orgId: target.api.orgId }, form.id, deepId);
    if (!deep) throw new Error(`P8: seeded submission ${deepId} not found`);
    const [next] = await store.listSubmissions({ orgId: target.api.orgId }, form.id, { limit: 1, after: deep });
    return { form, seedMs, deepCursor: encodeCursor(deep), deepFirstId: next?.id ?? '' };
  } finally {
    await close();
  }
}

function p95(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? Number.NaN;
}

async function timed<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const value = await f();
  return [performance.now() - t0, value];
}

type Page = { data: { id: string }[]; nextCursor: string | null };

/**
 * One round: `samples` × (first page of 100, deep page of 100, the dashboard's count), interleaved, through the
 * gateway with the API key. Every answer is checked; a wrong one is a problem (it fails the bench).
 */
export async function measureP8(
  target: FormgateTarget,
  seed: P8Seed,
  s: P8Settings,
  ctx: { label: string; problems: string[] },
): Promise<P8Round> {
  const { api } = target;
  const base = `/api/v1/forms/${seed.form.id}`;
  const times = { first: [] as number[], deep: [] as number[], count: [] as number[] };
  const check = (ok: boolean, what: string) => {
    const problem = `${ctx.label}: ${what}`;
    if (!ok && !ctx.problems.includes(problem)) ctx.problems.push(problem);
  };
  for (let i = 0; i < s.samples; i++) {
    const [first, page] = await timed(() => api.get<Page>(`${base}/submissions?limit=100`));
    check(page.data.length === 100 && page.nextCursor !== null, 'the first page is not a full page');
    const [deep, deepPage] = await timed(() =>
      api.get<Page>(`${base}/submissions?limit=100&cursor=${seed.deepCursor}`),
    );
    check(deepPage.data[0]?.id === seed.deepFirstId, 'the deep page does not start where its cursor points');
    const [count, form] = await timed(() => api.get<{ submissionCount: number }>(base));
    check(form.submissionCount === s.submissions, `the count is not ${s.submissions}`);
    times.first.push(first);
    times.deep.push(deep);
    times.count.push(count);
  }
  return { firstP95Ms: p95(times.first), deepP95Ms: p95(times.deep), countP95Ms: p95(times.count) };
}
