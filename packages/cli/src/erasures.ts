import { readFile } from 'node:fs/promises';
import { verifyErasureReceipt } from '@formgate/kit';
import type { CliConfig } from './config.ts';
import { CliError, createClient } from './http.ts';

type Call = ReturnType<typeof createClient>;
/** `GET /api/v1/erasures/keys`'s answer (the CLI depends on kit only). */
type ErasureKeys = { keys: Parameters<typeof verifyErasureReceipt>[1] };

/** A result printed like any other, after which the CLI exits with `code` (a receipt that does not verify). */
export class ExitWith {
  constructor(
    readonly code: number,
    readonly result: unknown,
  ) {}
}

const ERASE_USAGE = 'Usage: formgate erase <email> | formgate erase verify <receipt.json>';
const ERASURES_USAGE = 'Usage: formgate erasures list [--limit <n>] | formgate erasures get <id>';

/**
 * Whether the signed receipt in `file` is one the instance at FORMGATE_URL signed, unaltered: its public keys
 * (`GET /api/v1/erasures/keys`, no authentication) and `verifyErasureReceipt`. Invalid → exit code 1.
 */
export async function verifyReceiptFile(config: CliConfig, file: string) {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CliError(`Cannot read ${file}`);
  }
  let signed: unknown;
  try {
    signed = JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not JSON: expected a signed receipt ({"receipt", "signature"})`);
  }
  const { keys } = (await createClient(config)('GET', '/api/v1/erasures/keys')) as ErasureKeys;
  const valid = verifyErasureReceipt(signed, keys);
  const keyId = (signed as { signature?: { keyId?: unknown } } | null)?.signature?.keyId;
  const result = { valid, keyId: typeof keyId === 'string' ? keyId : null };
  return valid ? result : new ExitWith(1, result);
}

/** `erase <email>` (the signed receipt) and `erase verify <receipt.json>`. */
export function eraseCommand(config: CliConfig, args: string[], keyed: () => Call) {
  if (args[0] === 'verify') {
    if (args.length !== 2) throw new CliError(ERASE_USAGE);
    return verifyReceiptFile(config, args[1] as string);
  }
  if (args.length !== 1) throw new CliError(ERASE_USAGE);
  return keyed()('POST', '/api/v1/erasures', { email: args[0] });
}

/** `erasures list [--limit n]` (newest first) and `erasures get <id>` (its signed receipt). */
export function erasuresCommand(args: string[], o: { limit?: string | undefined }, keyed: () => Call) {
  if (args[0] === 'list' && args.length === 1) {
    return keyed()('GET', o.limit ? `/api/v1/erasures?${new URLSearchParams({ limit: o.limit })}` : '/api/v1/erasures');
  }
  if (args[0] === 'get' && args.length === 2) {
    return keyed()('GET', `/api/v1/erasures/${encodeURIComponent(args[1] as string)}`);
  }
  throw new CliError(ERASURES_USAGE);
}

/** `subject-access <email>`: everything the organization holds about the address, as one JSON document. */
export function subjectAccessCommand(args: string[], keyed: () => Call) {
  if (args.length !== 1) throw new CliError('Usage: formgate subject-access <email>');
  return keyed()('POST', '/api/v1/subject-access', { email: args[0] });
}
