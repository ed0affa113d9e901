import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCliConfig } from './config.ts';

const USAGE = `Usage:
  formgate forms create --name <name> [--slug <slug>] [--redirect <url>] [--org <id>]
  formgate forms list [--org <id>]
  formgate submissions list --form <id> [--limit <n>] [--cursor <c>] [--org <id>]

Talks to a running Formgate (FORMGATE_URL, or http://localhost:$PORT) with the operator token from
$DATA_DIR/operator-token (or FORMGATE_TOKEN). Prints the API's JSON.`;

class CliError extends Error {}

function token(config: ReturnType<typeof loadCliConfig>): string {
  if (config.token) return config.token;
  const file = join(config.dataDir, 'operator-token');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new CliError(`No operator token at ${file}. Start Formgate with the same DATA_DIR, or set FORMGATE_TOKEN.`);
  }
}

async function call(method: string, path: string, body?: unknown, org?: string): Promise<unknown> {
  const config = loadCliConfig();
  const headers: Record<string, string> = { authorization: `Bearer ${token(config)}`, accept: 'application/json' };
  if (org) headers['x-formgate-org'] = org;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${config.baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new CliError(`Cannot reach Formgate at ${config.baseUrl}. Is it running (pnpm start)?`);
  }
  const payload = (await res.json().catch(() => null)) as { error?: { message?: string; code?: string } } | null;
  if (!res.ok)
    throw new CliError(`${res.status} ${payload?.error?.code ?? ''}: ${payload?.error?.message ?? res.statusText}`);
  return payload;
}

async function run(argv: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      slug: { type: 'string' },
      redirect: { type: 'string' },
      org: { type: 'string' },
      form: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals.join(' ');
  if (values.help || command === '') throw new CliError(USAGE);
  switch (command) {
    case 'forms create': {
      if (!values.name) throw new CliError('forms create needs --name');
      const settings = values.redirect ? { redirectUrl: values.redirect } : undefined;
      return call('POST', '/api/v1/forms', { name: values.name, slug: values.slug, settings }, values.org);
    }
    case 'forms list':
      return call('GET', '/api/v1/forms', undefined, values.org);
    case 'submissions list': {
      if (!values.form) throw new CliError('submissions list needs --form <id>');
      const query = new URLSearchParams();
      if (values.limit) query.set('limit', values.limit);
      if (values.cursor) query.set('cursor', values.cursor);
      const qs = query.size ? `?${query}` : '';
      return call('GET', `/api/v1/forms/${encodeURIComponent(values.form)}/submissions${qs}`, undefined, values.org);
    }
    default:
      throw new CliError(`Unknown command "${command}".\n\n${USAGE}`);
  }
}

run(process.argv.slice(2).filter((a) => a !== '--')).then(
  (result) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`),
  (err: unknown) => {
    process.stderr.write(`${err instanceof CliError ? err.message : String(err)}\n`);
    process.exit(err instanceof CliError ? 2 : 1);
  },
);
