import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BURST_PREFIX, type BurstClientInput, type BurstClientResult } from './burst-protocol.ts';
import type { BenchForm, FormgateApi } from './formgate-api.ts';
import type { Payload } from './payloads.ts';
import { REPO_ROOT } from './processes.ts';

/** One P7 burst, checked against the store. */
export interface BurstResult {
  sent: number;
  /** Answers 2xx/303: the server's promise that the submission is stored. */
  acknowledged: number;
  statuses: Record<string, number>;
  socketErrors: number;
  burstRps: number;
  /** The form's `submissionCount` once it stopped moving. */
  dashboardCount: number;
  /** Acknowledged ids not found by paging the submissions list (the loss). */
  missingIds: number;
  /** Last response → dashboard count ≥ acknowledged, ms; null if it never got there. */
  countLagMs: number | null;
}

function runClient(input: BurstClientInput): Promise<BurstClientResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bench/lib/burst-client.ts')], {
      cwd: REPO_ROOT,
      env: { ...process.env, BENCH_BURST_INPUT: JSON.stringify(input) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(BURST_PREFIX));
      if (code !== 0 || !line) reject(new Error(`burst client exited with ${code}:\n${err || out}`));
      else resolve(JSON.parse(line.slice(BURST_PREFIX.length)) as BurstClientResult);
    });
  });
}

/**
 * P7: `amount` submissions to a fresh form over `connections` connections as fast as they go; then the loss check:
 * every id the client got must be in the form's submission list, and the dashboard count must match.
 */
export async function runBurst(opts: {
  url: string;
  token: string;
  api: FormgateApi;
  form: BenchForm;
  payload: Payload;
  amount: number;
  connections: number;
}): Promise<BurstResult> {
  const client = await runClient({
    url: opts.url,
    path: `/f/${opts.form.key}`,
    contentType: opts.payload.contentType,
    bodyBase64: opts.payload.body.toString('base64'),
    amount: opts.amount,
    connections: opts.connections,
    formId: opts.form.id,
    token: opts.token,
    countTimeoutMs: 30_000,
  });
  const acknowledged = Object.entries(client.statuses)
    .filter(([status]) => (Number(status) >= 200 && Number(status) < 300) || status === '303')
    .reduce((sum, [, n]) => sum + n, 0);
  const settled = await opts.api.settle(opts.form.id, client.ids.length, 10_000);
  const stored = await opts.api.allSubmissionIds(opts.form.id);
  return {
    sent: client.sent,
    acknowledged,
    statuses: client.statuses,
    socketErrors: client.errors,
    burstRps: (acknowledged / client.burstMs) * 1000,
    dashboardCount: settled.count,
    missingIds: client.ids.filter((id) => !stored.has(id)).length + (acknowledged - client.ids.length),
    countLagMs: client.countLagMs,
  };
}
