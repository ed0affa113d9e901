import { randomBytes } from 'node:crypto';
import type { BrowserSession } from '../harness/browser-session.ts';
import { type StartedWhen, startDistributed } from '../harness/processes.ts';
import { checkLedger } from './ledger/checker.ts';
import { readSubmissionDlq } from './ledger/dlq.ts';
import { type LoadOptions, startLoad } from './ledger/generator.ts';
import { createReadModel, type ReadModel } from './ledger/read-model.ts';
import { printReport } from './ledger/report.ts';
import type { LedgerResult } from './ledger/types.ts';

/** `RELIABILITY_SOAK=1` multiplies every size and duration of the tier (see README). */
export const SOAK_FACTOR = process.env.RELIABILITY_SOAK === '1' ? 10 : 1;
export const scale = (n: number) => Math.round(n * SOAK_FACTOR);
/** Time budgets of a scenario: the test's own timeout grows with the soak factor. */
export const scenarioTimeout = (ms: number) => ms * SOAK_FACTOR;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ScenarioForm {
  scenario: string;
  id: string;
  key: string;
  apiKey: string;
  readModel: ReadModel;
}

/** The shared e2e backends (the global setup sets them); a scenario that kills one starts its own instead. */
export function sharedBackends() {
  const kafkaBrokers = process.env.KAFKA_BROKERS;
  const mongoUrl = process.env.MONGO_URL;
  if (!kafkaBrokers || !mongoUrl) throw new Error('KAFKA_BROKERS and MONGO_URL must be set (global setup)');
  return { kafkaBrokers, mongoUrl };
}

/** Creates a form in an organization of its own and waits until `ingestUrls` all know it. */
export async function createScenarioForm(
  baseUrl: string,
  apiKey: string,
  scenario: string,
  ingestUrls: string[],
): Promise<ScenarioForm> {
  const create = () =>
    fetch(`${baseUrl}/api/v1/forms`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Reliability ${scenario}` }),
    });
  // A scenario starts from a deployment that answers: after an earlier scenario's database outage the forms service
  // may still answer 503 + Retry-After for a while. Retried as the API asks, for up to 2 min; the wait is printed.
  const started = Date.now();
  let res = await create();
  while (res.status === 503 && res.headers.get('retry-after') && Date.now() - started < 120_000) {
    await res.body?.cancel();
    await sleep(1_000);
    res = await create();
  }
  if (Date.now() - started > 1_000) {
    process.stderr.write(
      `[reliability] ${scenario}: the API answered 503 for ${Date.now() - started} ms before the scenario\n`,
    );
  }
  if (res.status !== 201) throw new Error(`create form: ${res.status} ${await res.text()}`);
  const form = (await res.json()) as { id: string; key: string };
  for (const url of ingestUrls) {
    for (let i = 0; ; i++) {
      const probe = await fetch(`${url}/f/${form.key}`, { method: 'POST', headers: { accept: 'application/json' } });
      if (probe.status !== 404) break;
      if (i > 300) throw new Error(`form ${form.key} never reached ingest ${url}`);
      await sleep(100);
    }
  }
  return { scenario, ...form, apiKey, readModel: createReadModel(baseUrl, apiKey) };
}

/** Load against `form` through `baseUrl`, with a run id of its own. */
export function loadOn(baseUrl: string, form: ScenarioForm, opts: Omit<LoadOptions, 'baseUrl' | 'formKey' | 'runId'>) {
  return startLoad({
    baseUrl,
    formKey: form.key,
    runId: `${form.scenario}-${randomBytes(4).toString('hex')}`,
    ...opts,
  });
}

interface CheckOpts {
  faultsEndedAt: number;
  recoveryDeadlineMs: number;
  kafkaBrokers?: string;
  extra?: Record<string, unknown>;
  /** `false`: the caller prints the report itself (`printReport`), with figures it gathers after the check. */
  print?: false;
}

/** Runs the checker for `form`, prints its one-line report and returns it. */
export async function check(form: ScenarioForm, ledger: LedgerResult, opts: CheckOpts) {
  const brokers = opts.kafkaBrokers?.split(',');
  const report = await checkLedger({
    scenario: form.scenario,
    ledger,
    readModel: form.readModel,
    formId: form.id,
    faultsEndedAt: opts.faultsEndedAt,
    recoveryDeadlineMs: opts.recoveryDeadlineMs,
    ...(brokers ? { readDlq: () => readSubmissionDlq(brokers, form.id) } : {}),
  });
  if (opts.print !== false) printReport(report, opts.extra);
  return report;
}

/**
 * Runs a scenario's setup, trying again while the deployment answers 503 ("retry shortly": a database the previous
 * scenario restarted may still be reconnecting, and accounts answer `AUTH_UNAVAILABLE` until it has), for up to a
 * minute. Each try starts from scratch (a new organization): a failed one leaves nothing the scenario uses.
 */
async function afterFaults<T>(setup: () => Promise<T>, patienceMs = 60_000): Promise<T> {
  const deadline = Date.now() + patienceMs;
  for (;;) {
    try {
      return await setup();
    } catch (err) {
      if (!/: 503 /.test(err instanceof Error ? err.message : '') || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/**
 * The e2e harness's distributed deployment (gateway, 2 ingest, 2 forms, billing, orgs) on the given backends, with
 * what a scenario needs: a fresh form in its own organization, load through the gateway, and the checker.
 */
export async function startScenarioCluster(
  backends: { kafkaBrokers: string; mongoUrl: string },
  /** `alive`: resolves once every process listens, before its backends may be there (default: every one ready). */
  startedWhen: StartedWhen = 'ready',
  opts: Pick<Parameters<typeof startDistributed>[0], 'notificationsEnv' | 'plansFile'> = {},
) {
  const t0 = Date.now();
  // The plain topic names: the fault injectors (faults/poison.ts, ledger/dlq.ts) read and write them directly, and
  // this tier runs one file at a time.
  const cluster = await startDistributed({ ...backends, ...opts, kafkaTopicPrefix: '', startedWhen });
  process.stderr.write(`[reliability] distributed deployment ${startedWhen} in ${(Date.now() - t0) / 1000} s\n`);
  const ingestUrls = () => ['ingest-1', 'ingest-2'].map((n) => cluster.processes[n]?.url as string);
  return {
    cluster,
    backends,
    proc(name: string) {
      const p = cluster.processes[name];
      if (!p) throw new Error(`no process ${name}`);
      return p;
    },
    /** A fresh organization and form; set up like a patient client right after a fault (`afterFaults`). */
    newForm: (scenario: string): Promise<ScenarioForm> =>
      afterFaults(async () => {
        const apiKey = await cluster.apiKey(`${scenario}-${randomBytes(3).toString('hex')}`);
        return createScenarioForm(cluster.baseUrl, apiKey, scenario, ingestUrls());
      }),
    /** `newForm`, with the signed-in session of the organization's owner (for its cookie and more API keys). */
    newOwnedForm: (scenario: string): Promise<{ form: ScenarioForm; owner: BrowserSession }> =>
      afterFaults(async () => {
        const owner = await cluster.accounts.signUp();
        await cluster.accounts.createOrg(owner, `${scenario}-${randomBytes(3).toString('hex')}`);
        const apiKey = await cluster.accounts.createApiKey(owner, 'write');
        return { form: await createScenarioForm(cluster.baseUrl, apiKey, scenario, ingestUrls()), owner };
      }),
    load: (form: ScenarioForm, opts: Omit<LoadOptions, 'baseUrl' | 'formKey' | 'runId'>) =>
      loadOn(cluster.baseUrl, form, opts),
    check: (form: ScenarioForm, ledger: LedgerResult, opts: Omit<CheckOpts, 'kafkaBrokers'>) =>
      check(form, ledger, { ...opts, kafkaBrokers: backends.kafkaBrokers }),
    stop: () => cluster.stop(),
  };
}

export type ScenarioCluster = Awaited<ReturnType<typeof startScenarioCluster>>;

export interface ProbeResult {
  path: string;
  /** The status code, or `TIMEOUT` / the error's name. */
  status: number | string;
  retryAfter: string | null;
  ms: number;
}

/**
 * One API call with an API key (or other credentials: a session's `cookie` header), never throwing: what a client
 * would see, and how long it took.
 */
export async function apiProbe(
  baseUrl: string,
  credentials: string | Record<string, string>,
  path: string,
  timeoutMs = 15_000,
) {
  const t0 = Date.now();
  const auth = typeof credentials === 'string' ? { 'x-api-key': credentials } : credentials;
  try {
    const res = await fetch(`${baseUrl}${path}`, {
      headers: { ...auth, accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer();
    return { path, status: res.status, retryAfter: res.headers.get('retry-after'), ms: Date.now() - t0 };
  } catch (err) {
    const name = (err as Error).name === 'TimeoutError' ? 'TIMEOUT' : (err as Error).name;
    return { path, status: name, retryAfter: null, ms: Date.now() - t0 } satisfies ProbeResult;
  }
}

/**
 * Probes `path` every `everyMs` until `stop()`: each round one call per client, with the credentials its function
 * gives for that round (an API key, or headers), not waiting for the previous round's answers. `stop` returns every
 * answer, named by its client.
 */
export function probeApi(
  baseUrl: string,
  path: string,
  clients: Record<string, () => string | Record<string, string>>,
  everyMs = 500,
) {
  const answers: Promise<ProbeResult & { client: string }>[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const [client, credentials] of Object.entries(clients)) {
        answers.push(apiProbe(baseUrl, credentials(), path).then((p) => ({ ...p, client })));
      }
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return Promise.all(answers);
    },
  };
}
