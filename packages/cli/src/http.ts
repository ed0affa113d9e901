import type { CliConfig } from './config.ts';

export class CliError extends Error {}

type Payload = { error?: { message?: string; code?: string }; message?: string; code?: string } | null;

/**
 * One HTTP client for the CLI: JSON in and out, the API's error envelope (or better-auth's `{code, message}`)
 * turned into a readable error, and a cookie jar for the account commands.
 */
export function createClient(config: CliConfig, auth: { apiKey?: string; bearer?: string } = {}) {
  const cookies = new Map<string, string>();
  return async function call(method: string, path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json', origin: config.FORMGATE_URL };
    if (auth.apiKey) headers['x-api-key'] = auth.apiKey;
    if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
    if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${config.FORMGATE_URL}${path}`, {
        method,
        headers,
        redirect: 'manual',
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new CliError(`Cannot reach Formgate at ${config.FORMGATE_URL}. Is it running (pnpm start)?`);
    }
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (pair && eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    if (res.status === 204) return null;
    const payload = (await res.json().catch(() => null)) as Payload;
    if (!res.ok) {
      const code = payload?.error?.code ?? payload?.code ?? '';
      const message = payload?.error?.message ?? payload?.message ?? res.statusText;
      throw new CliError(`${res.status} ${code}: ${message}`);
    }
    return payload;
  };
}
