import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createFormgateClient, type FormgateClient, FormgateError } from '@formgate/client';
import { parseDuration } from './canary/duration.ts';
import { formatMetrics, formatResult, writeMetricsFile } from './canary/report.ts';
import { type CanaryDeps, type CanaryResult, runCanary } from './canary/run.ts';
import type { CliConfig } from './config.ts';
import { ExitWith } from './erasures.ts';
import { CliError } from './http.ts';
import { Printed } from './ops.ts';

export const CANARY_USAGE =
  'Usage: formgate canary --form <id> [--deadline <duration, default 60s>] [--every <duration>] ' +
  '[--metrics-file <path.prom>] [--json]';

export interface CanaryOptions {
  form?: string | undefined;
  deadline?: string | undefined;
  every?: string | undefined;
  'metrics-file'?: string | undefined;
  json: boolean;
}

const sleep = (ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined);

/**
 * What must hold before anything is sent, as usage errors (exit 2): a write key (the canary deletes what it sent,
 * and a read key would leave it behind) and a form of its organization. An unreachable or failing deployment is
 * not a usage error: the run reports it.
 */
async function preflight(client: FormgateClient, formId: string) {
  try {
    if ((await client.apiKeys.current()).scope !== 'write')
      throw new CliError('formgate canary needs a write API key: it deletes the submission it sends.');
    await client.forms.get(formId);
  } catch (err) {
    if (!(err instanceof FormgateError)) throw err;
    if (err.status === 401) throw new CliError(`FORMGATE_API_KEY was refused (${err.code}): is it a valid API key?`);
    if (err.status === 404) throw new CliError(`No form ${formId} in the API key's organization (formgate forms list)`);
  }
}

function parseOptions(args: string[], o: CanaryOptions) {
  if (args.length) throw new CliError(CANARY_USAGE);
  if (!o.form) throw new CliError(`formgate canary needs --form <id>\n${CANARY_USAGE}`);
  const metricsFile = o['metrics-file'];
  if (metricsFile && !statSync(dirname(metricsFile), { throwIfNoEntry: false })?.isDirectory())
    throw new CliError(`--metrics-file: no directory ${dirname(metricsFile)}`);
  return {
    formId: o.form,
    deadlineMs: parseDuration('deadline', o.deadline ?? '60s'),
    everyMs: o.every === undefined ? null : parseDuration('every', o.every),
    metricsFile,
  };
}

/** After each run: the metrics file, rewritten (a failure to write is reported, and the canary goes on). */
async function record(result: CanaryResult, metricsFile: string | undefined, now: Date) {
  if (!metricsFile || result.interrupted) return;
  await writeMetricsFile(metricsFile, formatMetrics(result, now)).catch((err: Error) =>
    process.stderr.write(`formgate canary: cannot write ${metricsFile}: ${err.message}\n`),
  );
}

/**
 * `formgate canary`: one run (exit 0 when it passed, 1 when not), or with `--every` a run at that interval until
 * SIGINT or SIGTERM, each printed as it ends and never exiting on a failure. A signal stops the run under way, which
 * still deletes its submission; it then writes no metrics (a stop is not the deployment's failure). A second signal
 * ends the process at once.
 */
export async function canaryCommand(config: CliConfig, args: string[], o: CanaryOptions) {
  const { formId, deadlineMs, everyMs, metricsFile } = parseOptions(args, o);
  if (!config.FORMGATE_API_KEY)
    throw new CliError(
      'Set FORMGATE_API_KEY to a write API key of the organization (see: formgate account create-key).',
    );
  const client = createFormgateClient({ baseUrl: config.FORMGATE_URL, apiKey: config.FORMGATE_API_KEY });
  await preflight(client, formId);
  const deps: CanaryDeps = {
    client,
    now: () => new Date(),
    monotonicMs: () => performance.now(),
    newId: randomUUID,
    sleep,
  };
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    let runs = 0;
    let failed = 0;
    while (!stop.signal.aborted) {
      const began = performance.now();
      const result = await runCanary(deps, { formId, deadlineMs, signal: stop.signal });
      await record(result, metricsFile, deps.now());
      const shown = o.json ? result : new Printed(formatResult(result));
      if (everyMs === null) return result.ok ? shown : new ExitWith(1, shown);
      process.stdout.write(o.json ? `${JSON.stringify(result)}\n` : `${formatResult(result)}\n\n`);
      if (result.interrupted) break;
      runs += 1;
      if (!result.ok) failed += 1;
      await sleep(Math.max(0, everyMs - (performance.now() - began)), stop.signal);
    }
    return o.json
      ? new Printed(JSON.stringify({ stopped: true, runs, failed }))
      : new Printed(`formgate canary stopped: ${runs} runs, ${failed} failed`);
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
}
