import {
  CAPTCHA_PROVIDERS,
  type CaptchaProvider,
  type CaptchaSettings,
  type SpamLayer,
  SpamRulesSchema,
  type SpamSettings,
  type SpamSettingsPatch,
} from '@formgate/contracts';
import { z } from 'zod';

/*
 * The spam settings editor's model (issue 14), shared by a form's "Spam protection" panel and the organization's
 * defaults: the API's settings ⇄ the editor's values ⇄ the PATCH body. Pure functions, tested without a screen.
 */

/** How people read each layer of a spam reason. */
export const SPAM_LAYER_LABELS: Record<SpamLayer, string> = {
  honeypot: 'Honeypot',
  'rate-limit': 'Rate limit',
  origin: 'Allowed origins',
  'time-trap': 'Time-trap',
  captcha: 'Captcha',
  rules: 'Content rules',
};

export const CAPTCHA_LABELS: Record<CaptchaProvider, string> = {
  altcha: 'ALTCHA (self-hosted proof-of-work)',
  turnstile: 'Cloudflare Turnstile',
  hcaptcha: 'hCaptcha',
  recaptcha: 'Google reCAPTCHA',
};

/** The providers verified with a secret of the site's own account (ALTCHA is signed with the instance's key). */
export const needsSecret = (provider: string) =>
  provider === 'turnstile' || provider === 'hcaptcha' || provider === 'recaptcha';

/** A captcha as the API reads it: the secret never comes back (`secret: null`), only whether one is stored. */
export type CaptchaRead = CaptchaSettings & { secretSet?: boolean };
/** A form's own (or an organization's default) spam settings as read: an absent key falls back. */
export type SpamSettingsRead = Omit<SpamSettingsPatch, 'captcha'> & { captcha?: CaptchaRead | null };

/** A captcha as a PATCH sends it: without `secret`, the stored secret is kept. */
export type CaptchaRequest = Omit<CaptchaSettings, 'secret'> & { secret?: string | null };
/** Spam settings as a PATCH sends them: every key given is overridden, every absent one falls back. */
export type SpamSettingsRequest = Omit<SpamSettingsPatch, 'captcha'> & { captcha?: CaptchaRequest | null };

/** The top-level keys, each overridden as a whole or inherited (`resolveSpamSettings` merges at this level). */
export const SPAM_KEYS = ['timeTrapSeconds', 'origins', 'captcha', 'rateLimit', 'rules', 'shadow'] as const;
export type SpamKey = (typeof SPAM_KEYS)[number];

export const linesOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .trim()
    .refine((v) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max, {
      error: `A whole number from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}`,
    });

const inherit = z.boolean();

/** The editor's fields: numbers as typed text, lists one item a line; `inherit` per key. */
export const SpamFormSchema = z.object({
  timeTrapSeconds: z.object({ inherit, value: wholeNumber(0, 3600) }),
  origins: z.object({ inherit, value: z.enum(['off', 'flag', 'reject']) }),
  captcha: z
    .object({
      inherit,
      provider: z.enum(['none', ...CAPTCHA_PROVIDERS]),
      /** Typed to set or replace the secret; empty keeps the stored one. */
      secret: z.string().trim().max(500, 'At most 500 characters'),
      /** Whether the server holds a secret for `savedProvider` (read-only). */
      secretSet: z.boolean(),
      savedProvider: z.string(),
      minScore: z
        .string()
        .trim()
        .refine((v) => v === '' || (/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(v) && Number(v) <= 1), {
          error: 'A score from 0 to 1 (e.g. 0.5), or empty for reCAPTCHA v2',
        }),
      onFailure: z.enum(['flag', 'reject']),
    })
    .superRefine((c, ctx) => {
      if (c.inherit || !needsSecret(c.provider) || c.secret !== '') return;
      if (c.secretSet && c.savedProvider === c.provider) return;
      ctx.addIssue({
        code: 'custom',
        path: ['secret'],
        message: `Enter the secret key of your ${CAPTCHA_LABELS[c.provider as CaptchaProvider]} account`,
      });
    }),
  rateLimit: z.object({
    inherit,
    perIpPerMinute: wholeNumber(0, 1_000_000),
    perFormPerMinute: wholeNumber(0, 1_000_000),
    perOrgPerMinute: wholeNumber(0, 10_000_000),
  }),
  rules: z.object({
    inherit,
    blockedWords: z.string().refine((t) => SpamRulesSchema.shape.blockedWords.safeParse(linesOf(t)).success, {
      error: 'At most 500 words or phrases of at most 100 characters each',
    }),
    blockedDomains: z.string().refine((t) => SpamRulesSchema.shape.blockedDomains.safeParse(linesOf(t)).success, {
      error: 'At most 500 domains of at most 253 characters each',
    }),
    maxLinks: z
      .string()
      .trim()
      .refine((v) => v === '' || (/^\d+$/.test(v) && Number(v) <= 1000), {
        error: 'A whole number from 0 to 1,000, or empty for no limit',
      }),
    disposableEmails: z.boolean(),
    threshold: wholeNumber(1, 100),
  }),
  shadow: z.object({ inherit, value: z.boolean() }),
});
export type SpamFormValues = z.infer<typeof SpamFormSchema>;

/** The editor's fields for one key's settings (used for the key's own value and, when inherited, the fallback's). */
function fieldsOf(s: SpamSettings, captcha: CaptchaRead | null) {
  return {
    timeTrapSeconds: { value: String(s.timeTrapSeconds) },
    origins: { value: s.origins },
    captcha: {
      provider: captcha?.provider ?? ('none' as const),
      secret: '',
      secretSet: captcha?.secretSet ?? false,
      savedProvider: captcha?.provider ?? '',
      minScore: captcha?.minScore == null ? '' : String(captcha.minScore),
      onFailure: captcha?.onFailure ?? ('flag' as const),
    },
    rateLimit: {
      perIpPerMinute: String(s.rateLimit.perIpPerMinute),
      perFormPerMinute: String(s.rateLimit.perFormPerMinute),
      perOrgPerMinute: String(s.rateLimit.perOrgPerMinute),
    },
    rules: {
      blockedWords: s.rules.blockedWords.join('\n'),
      blockedDomains: s.rules.blockedDomains.join('\n'),
      maxLinks: s.rules.maxLinks === null ? '' : String(s.rules.maxLinks),
      disposableEmails: s.rules.disposableEmails,
      threshold: String(s.rules.threshold),
    },
    shadow: { value: s.shadow },
  };
}

/**
 * The editor's values: each key the settings give is the owner's own (`inherit: false`); each absent one shows the
 * fallback's value (`inherited`: the organization's default for a form, the built-in one for an organization).
 */
export function spamValuesOf(own: SpamSettingsRead | null | undefined, inherited: SpamSettings): SpamFormValues {
  const mine = { ...inherited, ...(own ?? {}) } as SpamSettings;
  const has = (key: SpamKey) => own?.[key] !== undefined;
  const fields = fieldsOf(mine, has('captcha') ? (own?.captcha ?? null) : inherited.captcha);
  // An inherited captcha's secret is the fallback's: a form overriding the captcha gives its own.
  const captcha = has('captcha') ? fields.captcha : { ...fields.captcha, secretSet: false, savedProvider: '' };
  return {
    timeTrapSeconds: { inherit: !has('timeTrapSeconds'), ...fields.timeTrapSeconds },
    origins: { inherit: !has('origins'), ...fields.origins },
    captcha: { inherit: !has('captcha'), ...captcha },
    rateLimit: { inherit: !has('rateLimit'), ...fields.rateLimit },
    rules: { inherit: !has('rules'), ...fields.rules },
    shadow: { inherit: !has('shadow'), ...fields.shadow },
  };
}

/** One key's fields back to the fallback's values (ticking "use the default" again). */
export function inheritedFieldsOf<K extends SpamKey>(key: K, inherited: SpamSettings): SpamFormValues[K] {
  return spamValuesOf(null, inherited)[key];
}

/**
 * The settings a PATCH sends for the editor's values: every key not inherited, whole; `null` when every key is
 * inherited. A captcha's secret goes only when typed (empty keeps the stored one); ALTCHA's is always null.
 */
export function spamRequestOf(v: SpamFormValues): SpamSettingsRequest | null {
  const out: SpamSettingsRequest = {};
  if (!v.timeTrapSeconds.inherit) out.timeTrapSeconds = Number(v.timeTrapSeconds.value);
  if (!v.origins.inherit) out.origins = v.origins.value;
  if (!v.captcha.inherit) out.captcha = captchaRequestOf(v.captcha);
  if (!v.rateLimit.inherit) {
    out.rateLimit = {
      perIpPerMinute: Number(v.rateLimit.perIpPerMinute),
      perFormPerMinute: Number(v.rateLimit.perFormPerMinute),
      perOrgPerMinute: Number(v.rateLimit.perOrgPerMinute),
    };
  }
  if (!v.rules.inherit) {
    out.rules = {
      blockedWords: linesOf(v.rules.blockedWords),
      blockedDomains: linesOf(v.rules.blockedDomains).map((d) => d.toLowerCase()),
      maxLinks: v.rules.maxLinks.trim() === '' ? null : Number(v.rules.maxLinks),
      disposableEmails: v.rules.disposableEmails,
      threshold: Number(v.rules.threshold),
    };
  }
  if (!v.shadow.inherit) out.shadow = v.shadow.value;
  return Object.keys(out).length > 0 ? out : null;
}

function captchaRequestOf(c: SpamFormValues['captcha']): CaptchaRequest | null {
  if (c.provider === 'none') return null;
  const minScore = c.provider === 'recaptcha' && c.minScore.trim() !== '' ? Number(c.minScore) : null;
  const base = { provider: c.provider, minScore, onFailure: c.onFailure };
  if (c.provider === 'altcha') return { ...base, secret: null };
  return c.secret.trim() === '' ? base : { ...base, secret: c.secret.trim() };
}
