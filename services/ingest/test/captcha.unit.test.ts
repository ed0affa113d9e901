import type { IncomingMessage } from 'node:http';
import {
  type CaptchaSettings,
  DEFAULT_FORM_SETTINGS,
  type Form,
  resolveSpamSettings,
  type SpamReason,
} from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CaptchaVerifier, startCaptchaVerifier } from '../../../tests/harness/captcha-verifier.ts';
import { createCaptchaLayer, DEFAULT_VERIFY_URLS, siteverify } from '../src/spam/captcha.ts';
import type { LayerFinding, SpamSubmission } from '../src/spam/layer.ts';

const SECRETS = { turnstile: 'ts-secret', hcaptcha: 'hc-secret', recaptcha: 'rc-secret' } as const;
let verifier: CaptchaVerifier;
beforeAll(async () => {
  verifier = await startCaptchaVerifier({ ...SECRETS });
});
afterAll(() => verifier.stop());

const form = (allowedOrigins: string[] = []): Form => ({
  id: 'form-1',
  orgId: 'org-1',
  name: 'Contact',
  slug: 'contact',
  key: 'k1',
  settings: { ...DEFAULT_FORM_SETTINGS, allowedOrigins },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  version: 1,
});

const submission = (
  captcha: CaptchaSettings | null,
  captchaTokens: Record<string, string>,
  allowedOrigins: string[] = [],
): SpamSubmission => ({
  form: form(allowedOrigins),
  settings: resolveSpamSettings(null, { captcha }),
  req: {} as IncomingMessage,
  clientIp: '203.0.113.7',
  now: new Date(),
  fields: [{ name: 'message', value: 'hello' }],
  captchaTokens,
  reserved: {},
});

const layer = (timeoutMs = 500) => createCaptchaLayer({ verify: { urls: verifier.urls, timeoutMs } });
const captcha = (provider: CaptchaSettings['provider'], more: Partial<CaptchaSettings> = {}): CaptchaSettings => ({
  provider,
  secret: provider === 'altcha' ? null : SECRETS[provider],
  minScore: null,
  onFailure: 'flag',
  ...more,
});
const reasonsOf = (f: LayerFinding): SpamReason[] => (f.verdict === 'pass' ? [] : f.reasons);
const FIELD = { turnstile: 'cf-turnstile-response', hcaptcha: 'h-captcha-response', recaptcha: 'g-recaptcha-response' };

describe('captcha layer: each provider through its siteverify API', () => {
  it.each(['turnstile', 'hcaptcha', 'recaptcha'] as const)(
    '%s: a good token passes; the request is as documented',
    async (p) => {
      const token = `good-${p}`;
      verifier.program(token, { outcome: 'success' });
      const finding = await layer().check(submission(captcha(p), { [FIELD[p]]: token }));
      expect(finding).toEqual({ verdict: 'pass' });
      const [call] = verifier.callsFor(token);
      expect(call).toEqual({
        provider: p,
        contentType: 'application/x-www-form-urlencoded',
        secret: SECRETS[p],
        response: token,
        remoteip: '203.0.113.7',
      });
    },
  );

  it.each(['turnstile', 'hcaptcha', 'recaptcha'] as const)(
    '%s: a rejected token flags with the provider error codes',
    async (p) => {
      const token = `bad-${p}`;
      verifier.program(token, { outcome: 'failure', errorCodes: ['timeout-or-duplicate'] });
      const finding = await layer().check(submission(captcha(p), { [FIELD[p]]: token }));
      expect(finding.verdict).toBe('flag');
      expect(reasonsOf(finding)).toEqual([
        { layer: 'captcha', rule: 'failed', detail: expect.stringContaining('timeout-or-duplicate') },
      ]);
    },
  );

  it('onFailure reject: a failed token blocks with 403 BLOCKED', async () => {
    verifier.program('bad-reject', { outcome: 'failure', errorCodes: ['invalid-input-response'] });
    const finding = await layer().check(
      submission(captcha('turnstile', { onFailure: 'reject' }), { 'cf-turnstile-response': 'bad-reject' }),
    );
    expect(finding.verdict).toBe('block');
    if (finding.verdict !== 'block') return;
    expect(finding.error).toBeInstanceOf(AppError);
    expect(finding.error.code).toBe('BLOCKED');
    expect(finding.reasons[0]?.rule).toBe('failed');
  });

  it('a wrong secret is the provider saying so (invalid-input-secret), as a failure', async () => {
    verifier.program('good-wrong-secret', { outcome: 'success' });
    const finding = await layer().check(
      submission(captcha('hcaptcha', { secret: 'not-it' }), { 'h-captcha-response': 'good-wrong-secret' }),
    );
    expect(reasonsOf(finding)[0]?.detail).toContain('invalid-input-secret');
  });

  it('a missing token is rule missing, flagged or blocked as configured, and the provider is not called', async () => {
    const before = verifier.calls.length;
    const flagged = await layer().check(submission(captcha('recaptcha'), { 'h-captcha-response': 'x' }));
    expect(reasonsOf(flagged)).toEqual([
      { layer: 'captcha', rule: 'missing', detail: 'no reCAPTCHA response was sent' },
    ]);
    const blocked = await layer().check(
      submission(captcha('turnstile', { onFailure: 'reject' }), { 'cf-turnstile-response': '  ' }),
    );
    expect(blocked.verdict).toBe('block');
    expect(verifier.calls.length).toBe(before);
  });

  it('hCaptcha and Turnstile in compatibility mode: the token in g-recaptcha-response is used', async () => {
    verifier.program('compat', { outcome: 'success' });
    expect(await layer().check(submission(captcha('hcaptcha'), { 'g-recaptcha-response': 'compat' }))).toEqual({
      verdict: 'pass',
    });
    expect(await layer().check(submission(captcha('turnstile'), { 'g-recaptcha-response': 'compat' }))).toEqual({
      verdict: 'pass',
    });
  });

  it('no captcha configured: passes without any call', async () => {
    const before = verifier.calls.length;
    expect(await layer().check(submission(null, {}))).toEqual({ verdict: 'pass' });
    expect(verifier.calls.length).toBe(before);
  });

  it('a provider without its secret flags as not-configured (never lost, never blocked)', async () => {
    const finding = await layer().check(
      submission(captcha('turnstile', { secret: null, onFailure: 'reject' }), { 'cf-turnstile-response': 't' }),
    );
    expect(finding.verdict).toBe('flag');
    expect(reasonsOf(finding)[0]?.rule).toBe('not-configured');
  });

  it('a token solved on a host that is not an allowed origin of the form fails (hostname-mismatch)', async () => {
    verifier.program('elsewhere', { outcome: 'success', hostname: 'evil.example' });
    verifier.program('here', { outcome: 'success', hostname: 'shop.example' });
    const origins = ['https://shop.example'];
    const bad = await layer().check(
      submission(captcha('turnstile'), { 'cf-turnstile-response': 'elsewhere' }, origins),
    );
    expect(reasonsOf(bad)[0]).toMatchObject({
      rule: 'hostname-mismatch',
      detail: expect.stringContaining('evil.example'),
    });
    const good = await layer().check(submission(captcha('turnstile'), { 'cf-turnstile-response': 'here' }, origins));
    expect(good).toEqual({ verdict: 'pass' });
  });
});

describe('captcha layer: reCAPTCHA v3 scores', () => {
  it('a score at or above minScore passes; below fails as low-score; no score with minScore fails', async () => {
    verifier.program('v3-high', { outcome: 'success', score: 0.9 });
    verifier.program('v3-edge', { outcome: 'success', score: 0.5 });
    verifier.program('v3-low', { outcome: 'success', score: 0.1 });
    verifier.program('v2-token', { outcome: 'success' });
    const v3 = captcha('recaptcha', { minScore: 0.5, onFailure: 'reject' });
    const check = (t: string) => layer().check(submission(v3, { 'g-recaptcha-response': t }));
    expect(await check('v3-high')).toEqual({ verdict: 'pass' });
    expect(await check('v3-edge')).toEqual({ verdict: 'pass' });
    const low = await check('v3-low');
    expect(low.verdict).toBe('block');
    expect(reasonsOf(low)).toEqual([
      { layer: 'captcha', rule: 'low-score', detail: 'reCAPTCHA score 0.1 is below 0.5' },
    ]);
    expect(reasonsOf(await check('v2-token'))[0]?.rule).toBe('low-score');
  });

  it('v2 (minScore null) ignores a score', async () => {
    verifier.program('v2-with-score', { outcome: 'success', score: 0.1 });
    expect(await layer().check(submission(captcha('recaptcha'), { 'g-recaptcha-response': 'v2-with-score' }))).toEqual({
      verdict: 'pass',
    });
  });
});

describe('captcha layer: provider outages always flag, even with onFailure reject', () => {
  it.each([
    ['a 500', { outcome: 'status', status: 500 } as const, 'answered 500'],
    ['a 503', { outcome: 'status', status: 503 } as const, 'answered 503'],
    ['an unparseable answer', { outcome: 'garbage' } as const, 'unparseable'],
    ['a hang (timeout)', { outcome: 'hang' } as const, 'timeout'],
  ])('%s', async (_name, behaviour, detail) => {
    const token = `outage-${detail}`;
    verifier.program(token, behaviour);
    const started = Date.now();
    const finding = await layer(300).check(
      submission(captcha('turnstile', { onFailure: 'reject' }), { 'cf-turnstile-response': token }),
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(finding.verdict).toBe('flag');
    expect(reasonsOf(finding)).toEqual([
      { layer: 'captcha', rule: 'provider-unavailable', detail: expect.stringContaining(detail) },
    ]);
    // Neither the token nor the secret is in the reason.
    expect(JSON.stringify(finding)).not.toContain(token);
    expect(JSON.stringify(finding)).not.toContain(SECRETS.turnstile);
  });

  it('a network error (nothing listening)', async () => {
    const dead = createCaptchaLayer({
      verify: { urls: { ...verifier.urls, hcaptcha: 'http://127.0.0.1:9/siteverify' }, timeoutMs: 500 },
    });
    const finding = await dead.check(
      submission(captcha('hcaptcha', { onFailure: 'reject' }), { 'h-captcha-response': 't' }),
    );
    expect(finding).toEqual({
      verdict: 'flag',
      reasons: [{ layer: 'captcha', rule: 'provider-unavailable', detail: expect.stringContaining('network') }],
    });
  });
});

describe('siteverify', () => {
  it('keeps only well-formed error codes from the answer', async () => {
    verifier.program('odd-codes', { outcome: 'failure', errorCodes: ['bad-request', '<script>', 'x'.repeat(100)] });
    const r = await siteverify(
      verifier.urls.recaptcha,
      { secret: SECRETS.recaptcha, response: 'odd-codes', remoteip: '' },
      500,
    );
    expect(r).toEqual({ kind: 'answered', success: false, errorCodes: ['bad-request'], score: null, hostname: null });
    expect(verifier.callsFor('odd-codes')[0]?.remoteip).toBeNull();
  });

  it("defaults to the providers' documented endpoints", () => {
    expect(DEFAULT_VERIFY_URLS).toEqual({
      turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
      hcaptcha: 'https://api.hcaptcha.com/siteverify',
      recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
    });
  });
});

describe('captcha layer: no captcha on the form', () => {
  it('passes without a promise, so the spam evaluator answers synchronously (the ingest hot path)', () => {
    const finding = layer().check(submission(null, { 'cf-turnstile-response': 'anything' }));
    expect(finding).not.toBeInstanceOf(Promise);
    expect(finding).toEqual({ verdict: 'pass' });
  });

  it('a configured captcha is still checked (asynchronously)', async () => {
    const pending = layer().check(submission(captcha('turnstile'), {}));
    expect(pending).toBeInstanceOf(Promise);
    expect(reasonsOf(await pending).map((r) => r.rule)).toEqual(['missing']);
  });
});
