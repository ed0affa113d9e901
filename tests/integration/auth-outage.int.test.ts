import { createAdapterFaults } from '@formgate/accounts/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserSession } from '../harness/browser-session.ts';
import { startTestApp, type TestApp } from '../harness/embedded-app.ts';

/**
 * The accounts database made unavailable through the fault injector (`createAdapterFaults`, wired by the embedded
 * host's test seam): failing as a refused connection does, or hanging so the guard's deadline decides.
 */
const AUTH_TIMEOUT_MS = 500;

const withKey = (app: TestApp, key: string, path = '/api/v1/forms') =>
  fetch(`${app.baseUrl}${path}`, { headers: { 'x-api-key': key } });

async function errorOf(res: Response) {
  return { status: res.status, code: ((await res.json()) as { error?: { code?: string } }).error?.code };
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  return [await run(), performance.now() - started];
}

describe('credentials while the accounts database is unavailable', () => {
  const faults = createAdapterFaults();
  let app: TestApp;
  let owner: BrowserSession & { email: string };
  let usedKey: string;
  let unusedKey: string;
  beforeAll(async () => {
    app = await startTestApp({ AUTH_TIMEOUT_MS: String(AUTH_TIMEOUT_MS) }, { wrapAccountsAdapter: faults.wrap });
    owner = await app.accounts.signUp();
    await app.accounts.createOrg(owner);
    usedKey = await app.accounts.createApiKey(owner, 'write');
    unusedKey = await app.accounts.createApiKey(owner, 'read');
    expect((await withKey(app, usedKey)).status).toBe(200);
  });
  afterEach(() => faults.heal());
  afterAll(() => app?.stop());

  it('failing: a cached key works, an uncached key and a session cookie get 503 AUTH_UNAVAILABLE, never 401', async () => {
    faults.fail();
    expect((await withKey(app, usedKey)).status).toBe(200);
    const uncached = await withKey(app, unusedKey);
    expect(uncached.headers.get('retry-after')).toBe('2');
    expect(await errorOf(uncached)).toEqual({ status: 503, code: 'AUTH_UNAVAILABLE' });
    const session = await owner.call('GET', '/api/v1/session');
    expect({ status: session.status, code: session.body.error.code }).toEqual({
      status: 503,
      code: 'AUTH_UNAVAILABLE',
    });
    const lookup = await fetch(`${app.baseUrl}/api/v1/users/by-email/${encodeURIComponent(owner.email)}`);
    expect(await errorOf(lookup)).toEqual({ status: 503, code: 'AUTH_UNAVAILABLE' });

    faults.heal();
    expect((await withKey(app, unusedKey)).status).toBe(200);
    expect((await owner.call('GET', '/api/v1/session')).status).toBe(200);
  });

  it('hanging: answers 503 within the deadline, for API keys, sessions and better-auth’s own endpoints', async () => {
    const neverUsed = await app.accounts.createApiKey(owner, 'read');
    faults.hang();
    const [key, keyMs] = await timed(async () => errorOf(await withKey(app, neverUsed)));
    expect(key).toEqual({ status: 503, code: 'AUTH_UNAVAILABLE' });
    const [session, sessionMs] = await timed(() => owner.call('GET', '/api/v1/session'));
    expect(session.status).toBe(503);
    const [signIn, signInMs] = await timed(() =>
      owner.call('POST', '/api/auth/sign-in/email', { email: owner.email, password: 'wrong password!!' }),
    );
    expect({ status: signIn.status, code: signIn.body.code }).toEqual({ status: 503, code: 'AUTH_UNAVAILABLE' });
    expect(signIn.headers.get('retry-after')).toBe('2');
    const [getSession, getSessionMs] = await timed(() => owner.call('GET', '/api/auth/get-session'));
    expect(getSession.status).toBe(503);
    for (const ms of [keyMs, sessionMs, signInMs, getSessionMs]) expect(ms).toBeLessThan(AUTH_TIMEOUT_MS * 4);
    expect((await withKey(app, usedKey)).status).toBe(200);
  });

  it('a revoked key is refused at once on this gateway, though it was cached', async () => {
    const key = await app.accounts.createApiKey(owner, 'read');
    expect((await withKey(app, key)).status).toBe(200);
    const listed = (await owner.call('GET', '/api/v1/api-keys')).body.data as { id: string; scope: string }[];
    const newest = listed[0] as { id: string };
    expect((await owner.call('DELETE', `/api/v1/api-keys/${newest.id}`)).status).toBe(204);
    expect((await withKey(app, key)).status).toBe(401);
  });
});

describe('a cached key past its TTL while the database is unavailable', () => {
  const faults = createAdapterFaults();
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(
      { AUTH_TIMEOUT_MS: '500', API_KEY_CACHE_TTL_MS: '200', API_KEY_CACHE_MAX_STALE_MS: '1500' },
      { wrapAccountsAdapter: faults.wrap },
    );
  });
  afterAll(async () => {
    faults.heal();
    await app?.stop();
  });

  it('is accepted up to the max-stale bound, then answers 503 until the database is back', async () => {
    const owner = await app.accounts.signUp();
    await app.accounts.createOrg(owner);
    const key = await app.accounts.createApiKey(owner, 'read');
    expect((await withKey(app, key)).status).toBe(200);
    faults.fail();
    await new Promise((r) => setTimeout(r, 400));
    expect((await withKey(app, key)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await errorOf(await withKey(app, key))).toEqual({ status: 503, code: 'AUTH_UNAVAILABLE' });
    faults.heal();
    expect((await withKey(app, key)).status).toBe(200);
  });
});
