// The P7 load generator, run as its own process by burst.ts: a fixed-count burst with autocannon (`amount`),
// recording every status and every submission id the server acknowledged, then timing how long the dashboard
// count takes to reach the number acknowledged. Prints one line `BURSTJSON {...}` (a BurstClientResult).
import autocannon from 'autocannon';
import { BURST_PREFIX, type BurstClientInput, type BurstClientResult } from './burst-protocol.ts';

const now = () => performance.timeOrigin + performance.now();

async function dashboardCount(input: BurstClientInput): Promise<number> {
  const res = await fetch(`${input.url}/api/v1/forms/${input.formId}`, {
    headers: { authorization: `Bearer ${input.token}`, accept: 'application/json' },
  });
  if (!res.ok) throw new Error(`dashboard count: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { submissionCount: number }).submissionCount;
}

async function timeCount(input: BurstClientInput, expected: number, lastResponseAt: number) {
  let count = 0;
  while (now() - lastResponseAt < input.countTimeoutMs) {
    count = await dashboardCount(input);
    if (count >= expected) return { countLagMs: Math.max(0, now() - lastResponseAt), lastCountSeen: count };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { countLagMs: null, lastCountSeen: count };
}

async function main() {
  const input = JSON.parse(process.env.BENCH_BURST_INPUT ?? '{}') as BurstClientInput;
  const statuses: Record<string, number> = {};
  const ids: string[] = [];
  let lastResponseAt = 0;
  const startedAt = now();
  const result = await autocannon({
    url: input.url,
    connections: input.connections,
    amount: input.amount,
    pipelining: 1,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path: input.path,
        headers: { 'content-type': input.contentType, accept: 'application/json' },
        body: Buffer.from(input.bodyBase64, 'base64'),
        onResponse: (status: number, body: string) => {
          lastResponseAt = now();
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status >= 200 && status < 300) {
            const id = (JSON.parse(body) as { id?: string }).id;
            if (id) ids.push(id);
          }
        },
      },
    ],
  });
  const counted = await timeCount(input, ids.length, lastResponseAt);
  const out: BurstClientResult = {
    sent: result.requests.sent,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    ids,
    burstMs: lastResponseAt - startedAt,
    ...counted,
  };
  process.stdout.write(`${BURST_PREFIX}${JSON.stringify(out)}\n`);
}

await main();
