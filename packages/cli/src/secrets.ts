import { existsSync } from 'node:fs';
import {
  EMBEDDED_SECRETS,
  type EmbeddedSecretName,
  newSecretValue,
  retirePreviousSecret,
  rotateSecretFile,
} from '@formgate/kit';
import { CliError } from './http.ts';

/** How long each secret's previous value should stay (ADR 50): the longest life of what it signed, plus margin. */
export const RECOMMENDED_WINDOW: Record<EmbeddedSecretName | 'identity-secret', string> = {
  'identity-secret': '10 minutes (identity tokens live 60 s; keep it until every pod rolled)',
  'ingest-secret': '24 hours (time-trap stamps live 24 h, ALTCHA challenges 20 min)',
  'file-link-secret': '7 days (file links in notification emails live 7 days)',
  'notifications-link-secret': '24 hours (address verification links live 24 h)',
  'operator-token': 'until every script and CI job uses the new token',
  'auth-secret':
    'until every gateway restarted with both values (each start encrypts two-factor secrets again with the new one); ' +
    'sessions are signed out at once either way',
  'privacy-key':
    'as long as submissions stored before the rotation are kept (an erasure finds them by the previous key) and ' +
    'receipts it signed must verify; retiring it leaves those unfindable by address',
};

const NAMES = Object.keys(EMBEDDED_SECRETS) as EmbeddedSecretName[];

function selected(v: { name?: string | undefined; all: boolean }): EmbeddedSecretName[] {
  if (v.all === (v.name !== undefined)) {
    throw new CliError(`Name one secret with --name <${NAMES.join('|')}>, or --all.`);
  }
  if (v.all) return NAMES;
  if (!NAMES.includes(v.name as EmbeddedSecretName)) {
    throw new CliError(`Unknown secret "${v.name}": one of ${NAMES.join(', ')}.`);
  }
  return [v.name as EmbeddedSecretName];
}

function dataDir(dir: string | undefined): string {
  if (!dir) throw new CliError("Set DATA_DIR to the embedded deployment's data directory (where its secrets live).");
  // A mistyped DATA_DIR must not quietly get secrets of its own.
  if (!existsSync(dir)) throw new CliError(`DATA_DIR ${dir} does not exist.`);
  return dir;
}

/**
 * `formgate secrets rotate`: embedded mode's secret files (`DATA_DIR/<name>`) get a new value, the old one moves to
 * `<name>.previous` (verifying only). Prints names and windows, never a value.
 */
export function rotate(dir: string | undefined, v: { name?: string | undefined; all: boolean }) {
  const root = dataDir(dir);
  const rotated = selected(v).map((name) => ({
    name,
    previousKept: rotateSecretFile(root, name).keptPrevious,
    keepPreviousFor: RECOMMENDED_WINDOW[name],
  }));
  return {
    rotated,
    next: [
      'Restart Formgate: it signs with the new values and still accepts what the previous ones signed.',
      'After each window: formgate secrets retire --name <name> (or --all), then restart.',
      ...(rotated.some((r) => r.name === 'auth-secret') ? ['auth-secret: every session is signed out.'] : []),
    ],
  };
}

/** `formgate secrets retire`: removes `DATA_DIR/<name>.previous`; what the old value signed stops verifying. */
export function retire(dir: string | undefined, v: { name?: string | undefined; all: boolean }) {
  const root = dataDir(dir);
  return {
    retired: selected(v).map((name) => ({ name, hadPrevious: retirePreviousSecret(root, name) })),
    next: ['Restart Formgate: the previous values are no longer accepted.'],
  };
}

/** The distributed deployments' signing secrets (environment variables) and their windows. */
const DISTRIBUTED = {
  IDENTITY_SECRET: 'identity-secret',
  INGEST_SECRET: 'ingest-secret',
  FILE_LINK_SECRET: 'file-link-secret',
  NOTIFICATIONS_LINK_SECRET: 'notifications-link-secret',
  OPERATOR_TOKEN: 'operator-token',
  AUTH_SECRET: 'auth-secret',
  PRIVACY_KEY: 'privacy-key',
} as const satisfies Record<string, keyof typeof RECOMMENDED_WINDOW>;
type DistributedName = keyof typeof DISTRIBUTED;
const isDistributed = (n: string): n is DistributedName => n in DISTRIBUTED;

/**
 * `formgate secrets generate`: fresh values for a distributed deployment, with the rotation steps. It reads and
 * changes nothing (it knows no current value): only new values are printed.
 */
export function generate(v: { name?: string | undefined }) {
  const names = v.name === undefined ? (Object.keys(DISTRIBUTED) as DistributedName[]) : [v.name];
  const valid = names.filter(isDistributed);
  if (valid.length !== names.length) {
    throw new CliError(`Unknown secret "${v.name}": one of ${Object.keys(DISTRIBUTED).join(', ')}.`);
  }
  return {
    values: Object.fromEntries(valid.map((n) => [n, newSecretValue()])),
    keepPreviousFor: Object.fromEntries(valid.map((n) => [`${n}_PREVIOUS`, RECOMMENDED_WINDOW[DISTRIBUTED[n]]])),
    steps: [
      'In the Secret formgate-secrets, for each NAME: set NAME_PREVIOUS to its current value, NAME to the new one.',
      'Roll every Deployment (kubectl rollout restart deployment): new values sign, previous ones still verify.',
      'After the window: delete NAME_PREVIOUS from the Secret and roll again.',
      'Replacing AUTH_SECRET signs every session out; AUTH_SECRET_PREVIOUS keeps two-factor working meanwhile.',
    ],
  };
}
