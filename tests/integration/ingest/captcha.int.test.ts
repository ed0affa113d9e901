import type { CaptchaSettings } from '@formgate/contracts';
import { type Challenge, createChallenge, solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { altchaKeys } from '../../../services/ingest/src/spam/altcha.ts';
import { type CaptchaVerifier, startCaptchaVerifier } from '../../harness/captcha-verifier.ts';
import { eventually, startTestApp, type TestApp, type TestForm } from '../../harness/embedded-app.ts';
import { expectRejected, JSON_CLIENT, URLENCODED } from './ingest-client.ts';

/**
 * Captchas over HTTP in embedded mode (docs/ingest.md, "Captcha and ALTCHA"): Turnstile, hCaptcha and reCAPTCHA
 * verified through a local stand-in of their siteverify APIs, ALTCHA solved with altcha-lib's solver.
 */
const SECRETS = { turnstile: 'ts-secret-1', hcaptcha: 'hc-secret-1', recaptcha: 'rc-secret-1' } as const;
const INGEST_SECRET = 'i'.repeat(48);
const FIELD = { turnstile: 'cf-turnstile-response', hcaptcha: 'h-captcha-response', recaptcha: 'g-recaptcha-response' };

interface StoredSubmission {
  id: string;
  spam: boolean;
  spamReasons: { layer: string; rule: string; detail: string }[];
  fields: { name: string; value: string }[];
}

describe('captcha layer over HTTP (embedded)', () => {
  let app: TestApp;
  let verifier: CaptchaVerifier;
  const forms: Record<string, TestForm> = {};
  const captchaForm = async (name: string, captcha: Partial<CaptchaSettings> & Pick<CaptchaSettings, 'provider'>) => {
    forms[name] = await app.createForm({
      name,
      settings: {
        spam: {
          captcha: {
            secret: captcha.provider === 'altcha' ? null : SECRETS[captcha.provider],
            minScore: null,
            onFailure: 'flag',
            ...captcha,
          },
        },
      },
    });
  };

  beforeAll(async () => {
    verifier = await startCaptchaVerifier({ ...SECRETS });
    app = await startTestApp({
      ...verifier.env,
      CAPTCHA_VERIFY_TIMEOUT_MS: '400',
      ALTCHA_MAX_COUNTER: '400',
      INGEST_SECRET,
    });
    await captchaForm('turnstile', { provider: 'turnstile' });
    await captchaForm('turnstile-reject', { provider: 'turnstile', onFailure: 'reject' });
    await captchaForm('hcaptcha', { provider: 'hcaptcha' });
    await captchaForm('recaptcha', { provider: 'recaptcha', onFailure: 'reject' });
    await captchaForm('recaptcha-v3', { provider: 'recaptcha', minScore: 0.5 });
    await captchaForm('altcha', { provider: 'altcha' });
    await captchaForm('altcha-reject', { provider: 'altcha', onFailure: 'reject' });
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    await verifier?.stop();
  });

  const post = (form: string, body: Record<string, string>) =>
    fetch(`${app.baseUrl}/f/${forms[form]?.key}`, {
      method: 'POST',
      headers: { ...JSON_CLIENT, ...URLENCODED },
      body: new URLSearchParams(body).toString(),
    });
  const stored = (form: string, id: string) =>
    eventually(async () => {
      const got = await app.api('GET', `/api/v1/forms/${forms[form]?.id}/submissions/${id}`);
      expect(got.status).toBe(200);
      return got.body as unknown as StoredSubmission;
    });
  const accept = async (form: string, body: Record<string, string>) => {
    const res = await post(form, body);
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    return stored(form, id);
  };
  const count = async (form: string) => (await app.listSubmissions(forms[form]?.id ?? '', '?limit=100')).data.length;

  describe.each(['turnstile', 'hcaptcha', 'recaptcha'] as const)('%s', (provider) => {
    it('a good token is accepted and not spam; the provider got the secret, the token and the client address', async () => {
      const token = `good-${provider}-${Date.now()}`;
      verifier.program(token, { outcome: 'success' });
      const got = await accept(provider, { message: 'hello', [FIELD[provider]]: token });
      expect(got.spam).toBe(false);
      expect(got.spamReasons).toEqual([]);
      // The token is a reserved field, never stored as data.
      expect(got.fields).toEqual([{ name: 'message', value: 'hello' }]);
      expect(verifier.callsFor(token)).toEqual([
        expect.objectContaining({ provider, secret: SECRETS[provider], response: token, remoteip: '127.0.0.1' }),
      ]);
    });
  });

  it('a failed token on a flag form is stored as spam with the provider’s error codes', async () => {
    verifier.program('hc-bad', { outcome: 'failure', errorCodes: ['invalid-or-already-seen-response'] });
    const got = await accept('hcaptcha', { message: 'hi', 'h-captcha-response': 'hc-bad' });
    expect(got.spam).toBe(true);
    expect(got.spamReasons).toEqual([
      { layer: 'captcha', rule: 'failed', detail: 'hCaptcha rejected the token: invalid-or-already-seen-response' },
    ]);
  });

  it('a failed or missing token on a reject form answers 403 BLOCKED and stores nothing', async () => {
    verifier.program('ts-bad', { outcome: 'failure', errorCodes: ['invalid-input-response'] });
    const before = await count('turnstile-reject');
    await expectRejected(
      await post('turnstile-reject', { message: 'hi', 'cf-turnstile-response': 'ts-bad' }),
      403,
      'BLOCKED',
    );
    await expectRejected(await post('turnstile-reject', { message: 'hi' }), 403, 'BLOCKED');
    await expectRejected(await post('recaptcha', { message: 'hi', 'g-recaptcha-response': 'unknown' }), 403, 'BLOCKED');
    // A later good one is stored: the list moved by exactly that one.
    verifier.program('ts-good-after', { outcome: 'success' });
    await accept('turnstile-reject', { message: 'ok', 'cf-turnstile-response': 'ts-good-after' });
    expect(await count('turnstile-reject')).toBe(before + 1);
  });

  it('a missing token on a flag form is stored as spam (missing)', async () => {
    const got = await accept('turnstile', { message: 'no widget' });
    expect(got.spamReasons).toEqual([{ layer: 'captcha', rule: 'missing', detail: 'no Turnstile response was sent' }]);
  });

  it.each([
    ['answers 500', { outcome: 'status', status: 500 } as const],
    ['hangs past the timeout', { outcome: 'hang' } as const],
    ['answers garbage', { outcome: 'garbage' } as const],
  ])(
    'a provider that %s: even a reject form accepts, flagged provider-unavailable, stored',
    async (_name, behaviour) => {
      const token = `outage-${behaviour.outcome}`;
      verifier.program(token, behaviour);
      const got = await accept('turnstile-reject', { message: 'lead', 'cf-turnstile-response': token });
      expect(got.spam).toBe(true);
      expect(got.fields).toEqual([{ name: 'message', value: 'lead' }]);
      expect(got.spamReasons).toEqual([
        { layer: 'captcha', rule: 'provider-unavailable', detail: expect.stringContaining('Turnstile verification') },
      ]);
    },
  );

  it('reCAPTCHA v3: a score below minScore is flagged low-score; at or above passes', async () => {
    verifier.program('v3-low', { outcome: 'success', score: 0.2 });
    verifier.program('v3-high', { outcome: 'success', score: 0.7 });
    const low = await accept('recaptcha-v3', { message: 'hi', 'g-recaptcha-response': 'v3-low' });
    expect(low.spamReasons).toEqual([
      { layer: 'captcha', rule: 'low-score', detail: 'reCAPTCHA score 0.2 is below 0.5' },
    ]);
    expect((await accept('recaptcha-v3', { message: 'hi', 'g-recaptcha-response': 'v3-high' })).spam).toBe(false);
  });

  describe('ALTCHA', () => {
    const challengeFor = async (form: string) => {
      const res = await fetch(`${app.baseUrl}/f/${forms[form]?.key}/altcha`);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('cache-control')).toBe('no-store');
      return (await res.json()) as Challenge;
    };
    const solved = async (challenge: Challenge) => {
      const solution = await solveChallenge({ challenge, deriveKey, timeout: 30_000 });
      return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
    };

    it('GET /f/{key}/altcha answers a challenge; solved, it is accepted and not spam', async () => {
      const payload = await solved(await challengeFor('altcha'));
      const got = await accept('altcha', { message: 'human', altcha: payload });
      expect(got.spam).toBe(false);
      expect(got.fields).toEqual([{ name: 'message', value: 'human' }]);
    });

    it('a replayed solution is flagged (flag form) or refused 403 BLOCKED (reject form)', async () => {
      const payload = await solved(await challengeFor('altcha'));
      expect((await accept('altcha', { message: 'first', altcha: payload })).spam).toBe(false);
      const replay = await accept('altcha', { message: 'again', altcha: payload });
      expect(replay.spamReasons).toEqual([
        { layer: 'captcha', rule: 'replayed', detail: 'the ALTCHA solution was already used' },
      ]);

      const strict = await solved(await challengeFor('altcha-reject'));
      expect((await accept('altcha-reject', { message: 'first', altcha: strict })).spam).toBe(false);
      await expectRejected(await post('altcha-reject', { message: 'again', altcha: strict }), 403, 'BLOCKED');
    });

    it("another form's challenge does not pass", async () => {
      const payload = await solved(await challengeFor('altcha-reject'));
      const got = await accept('altcha', { message: 'hi', altcha: payload });
      expect(got.spamReasons[0]).toMatchObject({ layer: 'captcha', rule: 'failed' });
    });

    it('an expired challenge (signed with this form’s key) is flagged expired', async () => {
      const form = forms.altcha;
      if (!form) throw new Error('no form');
      const challenge = await createChallenge({
        algorithm: 'PBKDF2/SHA-256',
        cost: 10,
        counter: 50,
        deriveKey,
        expiresAt: Math.floor(Date.now() / 1000) - 60,
        ...altchaKeys(INGEST_SECRET, form.id),
      });
      const got = await accept('altcha', { message: 'late', altcha: await solved(challenge) });
      expect(got.spamReasons).toEqual([{ layer: 'captcha', rule: 'expired', detail: 'the ALTCHA challenge expired' }]);
    });

    it('a missing solution is flagged; garbage is flagged failed', async () => {
      expect((await accept('altcha', { message: 'bot' })).spamReasons[0]?.rule).toBe('missing');
      expect((await accept('altcha', { message: 'bot', altcha: 'garbage' })).spamReasons[0]?.rule).toBe('failed');
    });

    it('an unknown form has no challenge (404 FORM_NOT_FOUND); a POST to the challenge is 405', async () => {
      await expectRejected(
        await fetch(`${app.baseUrl}/f/nope-nope/altcha`, { headers: JSON_CLIENT }),
        404,
        'FORM_NOT_FOUND',
      );
      await expectRejected(
        await fetch(`${app.baseUrl}/f/${forms.altcha?.key}/altcha`, { method: 'POST', headers: JSON_CLIENT }),
        405,
        'METHOD_NOT_ALLOWED',
      );
      const preflight = await fetch(`${app.baseUrl}/f/${forms.altcha?.key}/altcha`, { method: 'OPTIONS' });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
    });
  });

  it('never logs or stores the token or the secret', async () => {
    verifier.program('secret-token-xyz', { outcome: 'failure', errorCodes: ['invalid-input-response'] });
    const got = await accept('turnstile', { message: 'hi', 'cf-turnstile-response': 'secret-token-xyz' });
    expect(JSON.stringify(got)).not.toContain('secret-token-xyz');
    expect(JSON.stringify(got)).not.toContain(SECRETS.turnstile);
  });
});
