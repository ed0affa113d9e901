import type { StoredSubmission } from './types.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Page {
  data: { id: string; fields: { name: string; value: string }[] }[];
  nextCursor: string | null;
}

/**
 * The submissions read model as a client sees it: through the gateway's API with an organization API key. Reads
 * retry 5xx and network errors (bounded, honouring `Retry-After`), since the checker also runs right after faults.
 */
export function createReadModel(baseUrl: string, apiKey: string) {
  const get = async <T>(path: string): Promise<T> => {
    const errors: string[] = [];
    for (let attempt = 1; attempt <= 10; attempt++) {
      let wait = 500 * attempt;
      try {
        const res = await fetch(new URL(path, baseUrl), {
          headers: { 'x-api-key': apiKey, accept: 'application/json' },
          signal: AbortSignal.timeout(30_000),
        });
        if (res.ok) return (await res.json()) as T;
        errors.push(`${res.status} ${(await res.text()).slice(0, 200)}`);
        if (res.status < 500) break;
        wait = Math.max(wait, Number(res.headers.get('retry-after') ?? 0) * 1000);
      } catch (err) {
        errors.push((err as Error).message);
      }
      await sleep(Math.min(wait, 5_000));
    }
    throw new Error(`GET ${path} failed: ${errors.join(' | ')}`);
  };

  return {
    /** The form's submission counter (cheap; a trigger for a full listing, never the truth). */
    async count(formId: string): Promise<number> {
      return (await get<{ submissionCount: number }>(`/api/v1/forms/${formId}`)).submissionCount;
    },
    /** Every submission of the form, paging with the cursor; `maxPages` bounds the walk. */
    async listAll(formId: string, maxPages = 1_000): Promise<StoredSubmission[]> {
      const out: StoredSubmission[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < maxPages; page++) {
        const qs: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const body: Page = await get<Page>(`/api/v1/forms/${formId}/submissions?limit=100${qs}`);
        for (const s of body.data) out.push({ id: s.id, key: s.fields.find((f) => f.name === 'ledger')?.value });
        cursor = body.nextCursor;
        if (!cursor) return out;
      }
      throw new Error(`listing form ${formId} did not end after ${maxPages} pages`);
    },
  };
}

export type ReadModel = ReturnType<typeof createReadModel>;
