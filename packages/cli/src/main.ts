import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { auditCommand } from './audit.ts';
import { canaryCommand } from './canary.ts';
import { type CliConfig, loadCliConfig } from './config.ts';
import { dlqCommand, operator } from './dlq.ts';
import { ExitWith, eraseCommand, erasuresCommand, subjectAccessCommand } from './erasures.ts';
import { CliError, createClient } from './http.ts';
import { listenFromCli } from './listen.ts';
import { serveMcp } from './mcp.ts';
import { lagCommand, orgsCommand, Printed } from './ops.ts';
import { generate, retire, rotate } from './secrets.ts';

const USAGE = `Usage:
  formgate account signup --email <email> [--name <name>]
  formgate account create-key --email <email> [--org-name <name>] [--key-name <name>] [--scope read|write]
  formgate forms create --name <name> [--slug <slug>] [--redirect <url>]
  formgate forms list
  formgate submissions list --form <id> [--limit <n>] [--cursor <c>]
  formgate erase <email>
  formgate erasures list [--limit <n>]
  formgate erasures get <id>
  formgate erase verify <receipt.json>
  formgate subject-access <email>
  formgate mcp
  formgate listen --forward-to <http://localhost:PORT/path> [--form <id>] [--events <type>[,<type>...]]
  formgate canary --form <id> [--deadline <60s>] [--every <5m>] [--metrics-file <path.prom>] [--json]
  formgate audit verify [--all] [--since <file>]
  formgate site owner <email>
  formgate dlq counts
  formgate dlq list --topic <topic> [--from <offset>] [--limit <n>]
  formgate dlq replay --topic <topic> (--offset <o>[,<o>...] | --from <o> --to <o> | --all)
  formgate lag [--group <group>] [--json]
  formgate files sweep [--dry-run]
  formgate orgs list [--limit <n>]
  formgate orgs set-plan <org id or slug> <plan>
  formgate secrets rotate (--name <secret> | --all)     embedded mode: DATA_DIR's secret files
  formgate secrets retire (--name <secret> | --all)     embedded mode: drop the previous values
  formgate secrets generate [--name <SECRET>]           distributed mode: new values and the steps

Talks to a running Formgate (FORMGATE_URL, or http://localhost:$PORT) and prints the API's JSON.
forms, submissions, erase, erasures and subject-access commands authenticate with an organization API key:
FORMGATE_API_KEY=fg_...
erase deletes every submission of the organization in which the address appears (any field, any case, reply-to
and cc), with its files, notification copies and delivery content, and prints the signed receipt: it cannot be
undone, and needs a write key. erasures get prints a past erasure's signed receipt. erase verify checks a saved
receipt against the public keys of the instance at FORMGATE_URL (no API key) and prints {valid, keyId}; it exits
with 1 when the receipt does not verify. subject-access prints everything the organization holds about an address
(the same search, nothing erased), with short-lived links to its files.
mcp serves the Model Context Protocol over stdio for an assistant: the organization's forms and submissions through
the API key (FORMGATE_API_KEY; a read key is not offered mark_spam). Standard output carries the protocol only:
docs/mcp.md.
listen streams the organization's new submissions and delivery outcomes live (a read key is enough) and prints a
line per event; it POSTs each submission event to --forward-to, signed as real webhooks are with a signing secret
it prints at start (valid for that run), and prints the local answer's status. --events picks among
submission.created, submission.spam, delivery.succeeded, delivery.failed. It resumes after a dropped connection
without losing an event, and stops on SIGINT. docs/listen.md.
canary sends a marked submission to a form set up for it (a notification address and/or a webhook) and checks that
it is stored, mailed to every verified address and webhooked to every subscribed endpoint within --deadline
(default 60s), then deletes it, whatever happened; it prints one line per check and exits with 1 when one failed.
It needs a write API key. --every repeats it at that interval until SIGINT or SIGTERM (never exiting on a failed
run); --metrics-file writes Prometheus gauges (formgate_canary_success, …) for node_exporter's textfile collector
after each run. docs/operations.md, "Canary".
audit verify reads the organization's audit log in order and checks its hash chain on this machine: it prints the
number of entries and the latest hash (keep it: a log rewritten later no longer ends with it), or the first entry
where the chain breaks and why, and exits with 1 then. It needs a write API key, or with --all the operator token
for every organization. --since takes the JSON an earlier run printed (keep it outside Formgate): each chain must
still hold the head it ended with then, so a log cut short or rebuilt with new hashes fails too.
account commands take the password from FORMGATE_PASSWORD or standard input. signup sends a verification
email (embedded mode without SMTP: a file in DATA_DIR/mail, and its link in the server log); create-key signs
in, creates the organization if the account has none, and prints a new API key (shown once).
files sweep deletes the stored files no submission names any more and older than a day (direct uploads never
submitted, leftovers of a crash) now, as every forms instance does each hour, and prints what it found;
--dry-run only counts them.
dlq, lag, orgs, files and site commands are for the deployment's operator: FORMGATE_OPERATOR_TOKEN (embedded mode:
DATA_DIR/operator-token). lag prints, per consumer group and partition, the records appended and not yet
processed (0 once caught up), then the totals. orgs set-plan puts an organization on a plan of PLANS_FILE
without Stripe (the default plan ends the grant); a later Stripe change of its subscription replaces it. site owner makes an existing account an owner of the site organization, which holds
the instance's own forms (waitlist, feedback, live example).
A replayed dead letter is appended to its topic once, however often it is replayed.
secrets rotate gives each named secret of DATA_DIR (auth-secret, operator-token, file-link-secret,
notifications-link-secret, ingest-secret) a new value and keeps the old one as <name>.previous, which still
verifies what it signed until secrets retire removes it; a restart picks both up. No command prints an existing
secret. Windows and steps: docs/operations.md, "Rotating secrets".`;

async function password(config: CliConfig): Promise<string> {
  if (config.FORMGATE_PASSWORD) return config.FORMGATE_PASSWORD;
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  const line = await rl.question('Password: ');
  rl.close();
  if (!line) throw new CliError('A password is required (or set FORMGATE_PASSWORD)');
  return line;
}

function keyed(config: CliConfig) {
  if (!config.FORMGATE_API_KEY)
    throw new CliError('Set FORMGATE_API_KEY to an organization API key (see: formgate account create-key).');
  return createClient(config, { apiKey: config.FORMGATE_API_KEY });
}

type Values = Record<string, string | undefined>;

async function createKey(config: CliConfig, v: Values) {
  if (!v.email) throw new CliError('account create-key needs --email');
  const call = createClient(config);
  await call('POST', '/api/auth/sign-in/email', { email: v.email, password: await password(config) });
  const orgs = (await call('GET', '/api/auth/organization/list')) as { id: string; name: string; slug: string }[];
  // Without --org-name, never the instance's own site organization (ADR 23), which the first verified user owns.
  const wanted = v['org-name']
    ? orgs.find((o) => o.name === v['org-name'])
    : orgs.find((o) => o.slug !== 'formgate-site');
  const orgName = v['org-name'] ?? 'My organization';
  const org =
    wanted ??
    ((await call('POST', '/api/auth/organization/create', {
      name: orgName,
      slug: `${
        orgName
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '') || 'org'
      }-${Date.now().toString(36)}`,
    })) as { id: string });
  await call('POST', '/api/auth/organization/set-active', { organizationId: org.id });
  return call('POST', '/api/v1/api-keys', { name: v['key-name'] ?? 'cli', scope: v.scope ?? 'write' });
}

async function run(argv: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...Object.fromEntries(
        [
          'name',
          'slug',
          'redirect',
          'form',
          'limit',
          'cursor',
          'email',
          'org-name',
          'key-name',
          'scope',
          'topic',
          'from',
          'to',
          'offset',
          'group',
          'since',
          'deadline',
          'every',
          'metrics-file',
          'forward-to',
          'events',
        ].map((o) => [o, { type: 'string' as const }]),
      ),
      help: { type: 'boolean', short: 'h' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
    },
  });
  const v = values as Values;
  const config = loadCliConfig();
  const command = positionals.join(' ');
  if (values.help || command === '') throw new CliError(USAGE);
  if (positionals[0] === 'site' && positionals[1] === 'owner') {
    if (positionals.length !== 3) throw new CliError('Usage: formgate site owner <email>');
    return operator(config)('POST', '/api/ops/site/owners', { email: positionals[2] });
  }
  if (positionals[0] === 'orgs') return orgsCommand(config, positionals.slice(1), v);
  if (positionals[0] === 'erase') return eraseCommand(config, positionals.slice(1), () => keyed(config));
  if (positionals[0] === 'erasures') return erasuresCommand(positionals.slice(1), v, () => keyed(config));
  if (positionals[0] === 'audit')
    return auditCommand(
      positionals.slice(1),
      { all: values.all === true, since: v.since },
      {
        keyed: () => keyed(config),
        operator: () => operator(config),
      },
    );
  if (positionals[0] === 'canary')
    return canaryCommand(config, positionals.slice(1), { ...v, json: values.json === true });
  if (command === 'listen') return listenFromCli(config, v);
  if (positionals[0] === 'subject-access') return subjectAccessCommand(positionals.slice(1), () => keyed(config));
  switch (command) {
    case 'account signup': {
      if (!v.email) throw new CliError('account signup needs --email');
      const name = v.name ?? v.email.split('@')[0];
      await createClient(config)('POST', '/api/auth/sign-up/email', {
        email: v.email,
        password: await password(config),
        name,
      });
      return {
        email: v.email,
        next: 'Open the verification link sent to this address, then: formgate account create-key',
      };
    }
    case 'account create-key':
      return createKey(config, v);
    case 'forms create': {
      if (!v.name) throw new CliError('forms create needs --name');
      const settings = v.redirect ? { redirectUrl: v.redirect } : undefined;
      return keyed(config)('POST', '/api/v1/forms', { name: v.name, slug: v.slug, settings });
    }
    case 'forms list':
      return keyed(config)('GET', '/api/v1/forms');
    case 'submissions list': {
      if (!v.form) throw new CliError('submissions list needs --form <id>');
      const query = new URLSearchParams();
      if (v.limit) query.set('limit', v.limit);
      if (v.cursor) query.set('cursor', v.cursor);
      const qs = query.size ? `?${query}` : '';
      return keyed(config)('GET', `/api/v1/forms/${encodeURIComponent(v.form)}/submissions${qs}`);
    }
    case 'files sweep':
      return operator(config)('POST', `/api/ops/files/sweep${values['dry-run'] ? '?dryRun=true' : ''}`);
    case 'lag':
      return lagCommand(config, { ...(v.group ? { group: v.group } : {}), json: values.json === true });
    case 'secrets rotate':
      return rotate(config.DATA_DIR, { name: v.name, all: values.all === true });
    case 'secrets retire':
      return retire(config.DATA_DIR, { name: v.name, all: values.all === true });
    case 'secrets generate':
      return generate({ name: v.name });
    case 'dlq counts':
    case 'dlq list':
    case 'dlq replay':
      return dlqCommand(config, positionals[1] as 'counts' | 'list' | 'replay', { ...v, all: values.all === true });
    default:
      throw new CliError(`Unknown command "${command}".\n\n${USAGE}`);
  }
}

const args = process.argv.slice(2).filter((a) => a !== '--');
const failed = (err: unknown) => {
  process.stderr.write(`${err instanceof CliError ? err.message : String(err)}\n`);
  process.exit(err instanceof CliError ? 2 : 1);
};
if (args.length === 1 && args[0] === 'mcp') {
  // Standard output is the MCP channel: nothing is printed here, the server answers there until stdin closes.
  Promise.resolve()
    .then(() => serveMcp(loadCliConfig()))
    .catch(failed);
} else {
  run(args).then((outcome) => {
    const result = outcome instanceof ExitWith ? outcome.result : outcome;
    process.stdout.write(result instanceof Printed ? `${result.text}\n` : `${JSON.stringify(result, null, 2)}\n`);
    if (outcome instanceof ExitWith) process.exitCode = outcome.code;
  }, failed);
}
