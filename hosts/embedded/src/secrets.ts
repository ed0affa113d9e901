import { type EmbeddedSecretName, ensureSecretFile, readPreviousSecret } from '@formgate/kit';

/**
 * A signing secret of the embedded host (ADR 50): the environment's value if set (with `<NAME>_PREVIOUS`), otherwise
 * the file `DATA_DIR/<name>` (generated on first boot) and, during a rotation, `DATA_DIR/<name>.previous`, which
 * only verifies. `formgate secrets rotate` writes both; a restart picks them up.
 */
export function embeddedSecret(
  dataDir: string,
  name: EmbeddedSecretName,
  configured: string | undefined,
  configuredPrevious: string | undefined,
): { current: string; previous?: string | undefined } {
  if (configured) return { current: configured, previous: configuredPrevious };
  return { current: ensureSecretFile(dataDir, name), previous: readPreviousSecret(dataDir, name) };
}
