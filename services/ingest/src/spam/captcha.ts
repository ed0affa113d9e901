import type { CaptchaProvider, CaptchaSettings, SpamReason } from '@formgate/contracts';
import { AppError, type Logger } from '@formgate/kit';
import { z } from 'zod';
import { type Altcha, type AltchaDifficulty, DEFAULT_ALTCHA_DIFFICULTY } from './altcha.ts';
import type { AfterBodyLayer, LayerFinding, SpamSubmission } from './layer.ts';

/**
 * The captcha layer (issue 14, after the body): the form's `settings.spam.captcha` names a provider. Turnstile,
 * hCaptcha and reCAPTCHA tokens are checked through the provider's siteverify API (POST form-encoded `secret`,
 * `response`, `remoteip`; the answer's `success`, `error-codes`, `score`, `hostname`), ALTCHA solutions locally.
 * A missing or failed token flags the submission or blocks it (403 `BLOCKED`) as `onFailure` says; a provider
 * that cannot answer (timeout, network error, 5xx, an unparseable answer) always flags: the submission is kept.
 * Neither the token nor the secret is ever logged or put in a reason.
 */
export type RemoteProvider = Exclude<CaptchaProvider, 'altcha'>;

export const DEFAULT_VERIFY_URLS: Record<RemoteProvider, string> = {
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
};

/** Ingest's settings of the layer (the embedded host takes the same variables). */
export const captchaEnv = {
  /** Where tokens are verified; the providers' own URLs unless set (tests point them at a local verifier). */
  CAPTCHA_VERIFY_URL_TURNSTILE: z.url().default(DEFAULT_VERIFY_URLS.turnstile),
  CAPTCHA_VERIFY_URL_HCAPTCHA: z.url().default(DEFAULT_VERIFY_URLS.hcaptcha),
  CAPTCHA_VERIFY_URL_RECAPTCHA: z.url().default(DEFAULT_VERIFY_URLS.recaptcha),
  /** How long a verification may take before the provider counts as unavailable (the submission is flagged). */
  CAPTCHA_VERIFY_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(3_000),
  /**
   * ALTCHA's difficulty: the secret counter a client must find is drawn from [max/4, max] (each attempt one
   * PBKDF2/SHA-256 of 1,000 iterations); the default takes a current browser about a second.
   */
  ALTCHA_MAX_COUNTER: z.coerce.number().int().min(100).max(100_000).default(DEFAULT_ALTCHA_DIFFICULTY.maxCounter),
};

export interface CaptchaVerifyConfig {
  urls: Record<RemoteProvider, string>;
  timeoutMs: number;
}

export function altchaDifficulty(env: { ALTCHA_MAX_COUNTER: number }): AltchaDifficulty {
  const max = env.ALTCHA_MAX_COUNTER;
  return { cost: DEFAULT_ALTCHA_DIFFICULTY.cost, minCounter: Math.floor(max / 4), maxCounter: max };
}

export function captchaVerifyConfig(env: {
  CAPTCHA_VERIFY_URL_TURNSTILE: string;
  CAPTCHA_VERIFY_URL_HCAPTCHA: string;
  CAPTCHA_VERIFY_URL_RECAPTCHA: string;
  CAPTCHA_VERIFY_TIMEOUT_MS: number;
}): CaptchaVerifyConfig {
  return {
    urls: {
      turnstile: env.CAPTCHA_VERIFY_URL_TURNSTILE,
      hcaptcha: env.CAPTCHA_VERIFY_URL_HCAPTCHA,
      recaptcha: env.CAPTCHA_VERIFY_URL_RECAPTCHA,
    },
    timeoutMs: env.CAPTCHA_VERIFY_TIMEOUT_MS,
  };
}

export const DEFAULT_CAPTCHA_VERIFY: CaptchaVerifyConfig = { urls: DEFAULT_VERIFY_URLS, timeoutMs: 3_000 };

/**
 * The field each provider's widget fills, first; widgets in compatibility mode (hCaptcha always, Turnstile when
 * asked) also or only fill `g-recaptcha-response`.
 */
export const TOKEN_FIELDS: Record<CaptchaProvider, readonly string[]> = {
  turnstile: ['cf-turnstile-response', 'g-recaptcha-response'],
  hcaptcha: ['h-captcha-response', 'g-recaptcha-response'],
  recaptcha: ['g-recaptcha-response'],
  altcha: ['altcha'],
};

/** Turnstile documents 2,048 characters; reCAPTCHA and hCaptcha tokens are shorter still. */
const MAX_TOKEN_LENGTH = 4_096;

export type SiteverifyResult =
  | { kind: 'answered'; success: boolean; errorCodes: string[]; score: number | null; hostname: string | null }
  | { kind: 'unavailable'; why: 'timeout' | 'network' | 'status' | 'unparseable'; status?: number };

const SiteverifyAnswer = z.object({
  success: z.boolean(),
  'error-codes': z.array(z.unknown()).optional(),
  score: z.number().optional(),
  hostname: z.string().optional(),
});

/** An error code as recorded in a reason: the provider's own words, trimmed to something safe to show. */
const ERROR_CODE = /^[\w.-]{1,64}$/;

/** One call to a provider's siteverify endpoint. Never throws. */
export async function siteverify(
  url: string,
  params: { secret: string; response: string; remoteip: string },
  timeoutMs: number,
): Promise<SiteverifyResult> {
  const body = new URLSearchParams({ secret: params.secret, response: params.response });
  if (params.remoteip) body.set('remoteip', params.remoteip);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    const name = (err as { name?: string } | null)?.name;
    return { kind: 'unavailable', why: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network' };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    const name = (err as { name?: string } | null)?.name;
    return { kind: 'unavailable', why: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network' };
  }
  if (res.status >= 500) return { kind: 'unavailable', why: 'status', status: res.status };
  let answer: z.infer<typeof SiteverifyAnswer>;
  try {
    const parsed = SiteverifyAnswer.safeParse(JSON.parse(text));
    if (!parsed.success) return { kind: 'unavailable', why: 'unparseable', status: res.status };
    answer = parsed.data;
  } catch {
    return { kind: 'unavailable', why: 'unparseable', status: res.status };
  }
  return {
    kind: 'answered',
    success: answer.success,
    errorCodes: (answer['error-codes'] ?? [])
      .filter((c): c is string => typeof c === 'string' && ERROR_CODE.test(c))
      .slice(0, 10),
    score: answer.score ?? null,
    hostname: answer.hostname ?? null,
  };
}

export interface CaptchaLayerDeps {
  verify: CaptchaVerifyConfig;
  /** ALTCHA; without it a form set to `altcha` counts as not configured (flagged). */
  altcha?: Altcha;
  logger?: Logger;
}

const PROVIDER_NAMES: Record<CaptchaProvider, string> = {
  turnstile: 'Turnstile',
  hcaptcha: 'hCaptcha',
  recaptcha: 'reCAPTCHA',
  altcha: 'ALTCHA',
};

/** Hostnames of the form's allowed origins (entries that are not URLs are taken as host names). */
function allowedHostnames(origins: readonly string[]): Set<string> {
  const hosts = new Set<string>();
  for (const o of origins) {
    try {
      hosts.add(new URL(o).hostname.toLowerCase());
    } catch {
      hosts.add(o.toLowerCase());
    }
  }
  return hosts;
}

export function createCaptchaLayer(deps: CaptchaLayerDeps): AfterBodyLayer {
  const reason = (rule: string, detail: string): SpamReason => ({
    layer: 'captcha',
    rule,
    detail: detail.slice(0, 500),
  });
  /** A missing or failed captcha: as the form says. */
  const failure = (settings: CaptchaSettings, r: SpamReason): LayerFinding =>
    settings.onFailure === 'reject'
      ? { verdict: 'block', reasons: [r], error: new AppError('BLOCKED', 'The captcha was missing or not solved') }
      : { verdict: 'flag', reasons: [r] };
  /** Nothing to verify with: never the submitter's fault, never lost. */
  const unverifiable = (r: SpamReason): LayerFinding => ({ verdict: 'flag', reasons: [r] });

  const remote = async (
    provider: RemoteProvider,
    settings: CaptchaSettings,
    token: string,
    submission: SpamSubmission,
  ): Promise<LayerFinding> => {
    const name = PROVIDER_NAMES[provider];
    if (!settings.secret) {
      return unverifiable(reason('not-configured', `the form has no ${name} secret key; the token was not verified`));
    }
    const result = await siteverify(
      deps.verify.urls[provider],
      { secret: settings.secret, response: token, remoteip: submission.clientIp },
      deps.verify.timeoutMs,
    );
    if (result.kind === 'unavailable') {
      deps.logger?.warn(
        { provider, why: result.why, status: result.status, formId: submission.form.id },
        'captcha provider unavailable; submission flagged',
      );
      const what = result.why === 'status' ? `answered ${result.status}` : `unavailable (${result.why})`;
      return unverifiable(reason('provider-unavailable', `${name} verification ${what}; the token was not verified`));
    }
    if (!result.success) {
      const codes = result.errorCodes.length ? result.errorCodes.join(', ') : 'no error code';
      return failure(settings, reason('failed', `${name} rejected the token: ${codes}`));
    }
    if (provider === 'recaptcha' && settings.minScore !== null) {
      if (result.score === null) {
        return failure(
          settings,
          reason('low-score', `reCAPTCHA gave no score (not a v3 token); at least ${settings.minScore} is required`),
        );
      }
      if (result.score < settings.minScore) {
        return failure(settings, reason('low-score', `reCAPTCHA score ${result.score} is below ${settings.minScore}`));
      }
    }
    const origins = submission.form.settings.allowedOrigins;
    if (result.hostname && origins.length > 0 && !allowedHostnames(origins).has(result.hostname.toLowerCase())) {
      return failure(
        settings,
        reason(
          'hostname-mismatch',
          `the ${name} token was solved on ${result.hostname.slice(0, 253)}, not an allowed origin`,
        ),
      );
    }
    return { verdict: 'pass' };
  };

  /** The configured captcha's check (asynchronous: a provider's verify API, or ALTCHA's used-solutions store). */
  const verify = async (submission: SpamSubmission, settings: CaptchaSettings): Promise<LayerFinding> => {
    const { provider } = settings;
    const name = PROVIDER_NAMES[provider];
    const token = TOKEN_FIELDS[provider]
      .map((field) => submission.captchaTokens[field]?.trim())
      .find((t): t is string => t !== undefined && t !== '');
    if (token === undefined) return failure(settings, reason('missing', `no ${name} response was sent`));
    if (token.length > MAX_TOKEN_LENGTH) return failure(settings, reason('failed', `the ${name} response is too long`));
    if (provider !== 'altcha') return remote(provider, settings, token, submission);
    if (!deps.altcha) return unverifiable(reason('not-configured', 'ALTCHA is not configured on this instance'));
    const outcome = await deps.altcha.verify(submission.form.id, token);
    return outcome.ok ? { verdict: 'pass' } : failure(settings, reason(outcome.rule, outcome.detail));
  };

  return {
    name: 'captcha',
    phase: 'after-body',
    // Without a captcha the answer is synchronous: the evaluator then answers without a promise (the hot path).
    check(submission) {
      const settings = submission.settings.captcha;
      return settings ? verify(submission, settings) : { verdict: 'pass' };
    },
  };
}
