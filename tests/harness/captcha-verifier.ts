import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the captcha providers' siteverify APIs (Turnstile, hCaptcha, reCAPTCHA), answering as each
 * documents: a form-encoded POST of `secret`, `response` and `remoteip`, a JSON answer with `success`,
 * `error-codes`, `challenge_ts`, `hostname` (and reCAPTCHA v3's `score` and `action`). A wrong secret answers
 * `invalid-input-secret`, an unknown token `invalid-input-response`, as the providers do. Tokens are programmed
 * one by one; every request is recorded. Point ingest at it with `verifier.env`.
 */
export type Provider = 'turnstile' | 'hcaptcha' | 'recaptcha';

export type TokenBehaviour =
  | { outcome: 'success'; hostname?: string; score?: number }
  | { outcome: 'failure'; errorCodes: string[] }
  /** Answer with this HTTP status and a body that is not the documented JSON. */
  | { outcome: 'status'; status: number }
  /** A 200 whose body is not JSON. */
  | { outcome: 'garbage' }
  /** Never answer (until the verifier stops). */
  | { outcome: 'hang' };

export interface VerifyCall {
  provider: Provider;
  contentType: string;
  secret: string | null;
  response: string | null;
  remoteip: string | null;
}

const PATHS: Record<string, Provider> = {
  '/turnstile/v0/siteverify': 'turnstile',
  '/hcaptcha/siteverify': 'hcaptcha',
  '/recaptcha/api/siteverify': 'recaptcha',
};

export async function startCaptchaVerifier(secrets: Record<Provider, string>) {
  const tokens = new Map<string, TokenBehaviour>();
  const calls: VerifyCall[] = [];
  const hanging = new Set<ServerResponse>();

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const provider = PATHS[new URL(req.url ?? '/', 'http://verifier.invalid').pathname];
    if (!provider || req.method !== 'POST') return answer(res, 404, { error: 'not found' });
    const contentType = req.headers['content-type'] ?? '';
    const form = new URLSearchParams(contentType.startsWith('application/x-www-form-urlencoded') ? body : '');
    const call: VerifyCall = {
      provider,
      contentType,
      secret: form.get('secret'),
      response: form.get('response'),
      remoteip: form.get('remoteip'),
    };
    calls.push(call);
    const fail = (codes: string[]) => answer(res, 200, { success: false, 'error-codes': codes });
    if (!call.secret) return fail(['missing-input-secret']);
    if (call.secret !== secrets[provider]) return fail(['invalid-input-secret']);
    if (!call.response) return fail(['missing-input-response']);
    const behaviour = tokens.get(call.response);
    if (!behaviour) return fail(['invalid-input-response']);
    switch (behaviour.outcome) {
      case 'failure':
        return fail(behaviour.errorCodes);
      case 'status':
        res.writeHead(behaviour.status, { 'content-type': 'text/html' }).end('<h1>Service unavailable</h1>');
        return;
      case 'garbage':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not json</html>');
        return;
      case 'hang':
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      case 'success': {
        const common = {
          success: true,
          challenge_ts: new Date().toISOString(),
          hostname: behaviour.hostname ?? 'localhost',
          'error-codes': [],
        };
        if (provider === 'turnstile') return answer(res, 200, { ...common, action: '', cdata: '' });
        if (provider === 'hcaptcha') return answer(res, 200, { ...common, credit: false });
        return answer(
          res,
          200,
          behaviour.score === undefined ? common : { ...common, score: behaviour.score, action: 'submit' },
        );
      }
    }
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const urls: Record<Provider, string> = {
    turnstile: `${base}/turnstile/v0/siteverify`,
    hcaptcha: `${base}/hcaptcha/siteverify`,
    recaptcha: `${base}/recaptcha/api/siteverify`,
  };

  return {
    urls,
    /** Ingest's (or the embedded host's) settings pointing at this verifier. */
    env: {
      CAPTCHA_VERIFY_URL_TURNSTILE: urls.turnstile,
      CAPTCHA_VERIFY_URL_HCAPTCHA: urls.hcaptcha,
      CAPTCHA_VERIFY_URL_RECAPTCHA: urls.recaptcha,
    },
    /** How the verifier answers for `token` (any provider). */
    program(token: string, behaviour: TokenBehaviour) {
      tokens.set(token, behaviour);
    },
    calls,
    callsFor(token: string) {
      return calls.filter((c) => c.response === token);
    },
    async stop() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type CaptchaVerifier = Awaited<ReturnType<typeof startCaptchaVerifier>>;
