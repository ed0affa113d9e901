import { z } from 'zod';
import { trimmedText } from './text.ts';

/**
 * Spam and abuse (issue 14): the layers of ingest's verdict, a form's settings for them, and the reasons recorded
 * with every submission. The layers run in ingest, in this order: honeypot, rate limits, origins, time-trap,
 * captcha (or ALTCHA), content rules. A layer either blocks the request (403 `BLOCKED`, 429 `RATE_LIMITED`:
 * nothing is stored, the block is counted per form), flags the submission (stored with `spam: true` and its
 * reasons) or passes. In shadow mode a layer records what it would have done (`shadow: true`) and does nothing.
 */
export const SPAM_LAYERS = ['honeypot', 'rate-limit', 'origin', 'time-trap', 'captcha', 'rules'] as const;
export type SpamLayer = (typeof SPAM_LAYERS)[number];

export const SpamReasonSchema = z.object({
  layer: z.enum(SPAM_LAYERS),
  /** Stable rule name within the layer, e.g. `field-filled`, `too-fast`, `origin-not-allowed`, `blocked-word`. */
  rule: z.string().max(100),
  /** Human-readable detail (never the submitter's full content: at most a matched word or domain). */
  detail: z.string().max(500),
  /** Recorded in shadow mode: what the layer would have done; it did not count towards the verdict. */
  shadow: z.boolean().optional(),
});
export type SpamReason = z.infer<typeof SpamReasonSchema>;

export const SpamReasonListSchema = z.array(SpamReasonSchema);

export const CAPTCHA_PROVIDERS = ['altcha', 'turnstile', 'hcaptcha', 'recaptcha'] as const;
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];

export const CaptchaSettingsSchema = z.object({
  provider: z.enum(CAPTCHA_PROVIDERS),
  /**
   * The provider's secret key (turnstile, hcaptcha, recaptcha); null for ALTCHA (signed with the instance's key).
   * Never returned by the API: reads carry `secret: null` and `secretSet`. A PATCH without `secret` (or with null)
   * for the same provider keeps the stored one (`mergeSpamSettings`).
   */
  secret: z.string().min(1).max(500).nullish(),
  /** reCAPTCHA v3: the lowest score accepted (0–1); null = v2 (no score). */
  minScore: z.number().min(0).max(1).nullable(),
  /** A missing or failed captcha: `reject` answers 403 `BLOCKED`, `flag` stores it as spam. Outages always flag. */
  onFailure: z.enum(['flag', 'reject']),
});
export type CaptchaSettings = z.infer<typeof CaptchaSettingsSchema>;

export const SpamRulesSchema = z.object({
  /** Case-insensitive whole words (or phrases) in any field value. */
  blockedWords: z.array(trimmedText(100)).max(500),
  /** Email domains (and their subdomains) of any email-looking field value. */
  blockedDomains: z.array(trimmedText(253).toLowerCase()).max(500),
  /** More links (http(s) URLs) than this across the fields scores; null = no limit. */
  maxLinks: z.number().int().min(0).max(1000).nullable(),
  /** Email addresses at a disposable-address provider score. */
  disposableEmails: z.boolean(),
  /** The content score at or above which the submission is spam (each rule hit adds its documented weight). */
  threshold: z.number().int().min(1).max(100),
});
export type SpamRules = z.infer<typeof SpamRulesSchema>;

export const SpamSettingsSchema = z.object({
  /** A submission sent sooner than this after its signed render timestamp is spam; 0 = off. */
  timeTrapSeconds: z.number().int().min(0).max(3600),
  /** When the form lists allowed origins: a request from elsewhere is rejected (403 `BLOCKED`), flagged, or allowed. */
  origins: z.enum(['off', 'flag', 'reject']),
  captcha: CaptchaSettingsSchema.nullable(),
  /** Per minute; 0 = no limit. Over it: 429 `RATE_LIMITED` + `Retry-After`, nothing stored. */
  rateLimit: z.object({
    perIpPerMinute: z.number().int().min(0).max(1_000_000),
    perFormPerMinute: z.number().int().min(0).max(1_000_000),
    perOrgPerMinute: z.number().int().min(0).max(10_000_000),
  }),
  rules: SpamRulesSchema,
  /** Every layer records what it would have done without acting (the honeypot excepted: it always acts). */
  shadow: z.boolean(),
});
export type SpamSettings = z.infer<typeof SpamSettingsSchema>;

/** Settings as a form or organization stores them: any key absent falls back (form → organization → built-in). */
export const SpamSettingsPatchSchema = SpamSettingsSchema.partial();
export type SpamSettingsPatch = z.infer<typeof SpamSettingsPatchSchema>;

/** The built-in defaults: everything but the honeypot off, so nothing a site sends today is refused. */
export const DEFAULT_SPAM_SETTINGS: SpamSettings = {
  timeTrapSeconds: 0,
  origins: 'off',
  captcha: null,
  rateLimit: { perIpPerMinute: 0, perFormPerMinute: 0, perOrgPerMinute: 0 },
  rules: { blockedWords: [], blockedDomains: [], maxLinks: null, disposableEmails: false, threshold: 3 },
  shadow: false,
};

/** The settings in force for a form: its own keys over its organization's over the built-in defaults. */
export function resolveSpamSettings(
  org: SpamSettingsPatch | null | undefined,
  form: SpamSettingsPatch | null | undefined,
): SpamSettings {
  return { ...DEFAULT_SPAM_SETTINGS, ...(org ?? {}), ...(form ?? {}) };
}

/** Captcha settings as the API returns them: the secret is never sent back, only whether one is set. */
export const CaptchaSettingsViewSchema = CaptchaSettingsSchema.omit({ secret: true }).extend({
  secret: z.null(),
  secretSet: z.boolean(),
});
export type CaptchaSettingsView = z.infer<typeof CaptchaSettingsViewSchema>;
/** Spam settings (a form's or an organization's) as the API returns them. */
export const SpamSettingsPatchViewSchema = SpamSettingsPatchSchema.omit({ captcha: true }).extend({
  captcha: CaptchaSettingsViewSchema.nullable().optional(),
});
export type SpamSettingsPatchView = z.infer<typeof SpamSettingsPatchViewSchema>;

/** What the API shows of stored spam settings: the captcha `secret` as null, `secretSet` beside it. */
export function spamSettingsView(settings: SpamSettingsPatch | null): SpamSettingsPatchView | null {
  if (!settings) return null;
  const { captcha, ...rest } = settings;
  if (captcha === undefined) return rest;
  if (captcha === null) return { ...rest, captcha: null };
  return { ...rest, captcha: { ...captcha, secret: null, secretSet: typeof captcha.secret === 'string' } };
}

/** Providers verified with a secret key of the site's own (ALTCHA is signed with the instance's key). */
export const CAPTCHA_PROVIDERS_WITH_SECRET: readonly CaptchaProvider[] = ['turnstile', 'hcaptcha', 'recaptcha'];

/**
 * A PATCH's spam settings over stored ones: absent → unchanged; `null` → none of its own (all fall back); otherwise
 * the given object replaces the stored one whole, so a key left out falls back again (the dashboard sends every key
 * the form overrides, ADR 40). A captcha without `secret` (or with null) for the provider already stored keeps the stored secret;
 * ALTCHA keeps none. `missingSecret` names the provider when the result needs a secret and has none, for the
 * caller to refuse.
 */
export function mergeSpamSettings(
  current: SpamSettingsPatch | null,
  patch: SpamSettingsPatch | null | undefined,
): { settings: SpamSettingsPatch | null; missingSecret: CaptchaProvider | null } {
  if (patch === undefined) return { settings: current, missingSecret: null };
  if (patch === null) return { settings: null, missingSecret: null };
  const merged: SpamSettingsPatch = { ...patch };
  const captcha = patch.captcha;
  if (captcha) {
    const kept = current?.captcha?.provider === captcha.provider ? (current.captcha.secret ?? null) : null;
    const secret = captcha.provider === 'altcha' ? null : (captcha.secret ?? kept);
    merged.captcha = { ...captcha, secret };
  }
  const c = merged.captcha;
  const missingSecret = c && CAPTCHA_PROVIDERS_WITH_SECRET.includes(c.provider) && !c.secret ? c.provider : null;
  return { settings: merged, missingSecret };
}

/** A blocked request (not stored) as ingest counts it, per form. */
export const BlockedCountSchema = z.object({
  formId: z.string(),
  orgId: z.string(),
  layer: z.enum(SPAM_LAYERS),
  rule: z.string().max(100),
  /** Start of the UTC minute the blocks happened in. */
  minute: z.string(),
  count: z.number().int().positive(),
});
export type BlockedCount = z.infer<typeof BlockedCountSchema>;
