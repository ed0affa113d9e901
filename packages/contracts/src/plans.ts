import { z } from 'zod';

/**
 * Plans as data: one source for the pricing page, the billing screen, the quota service and the Stripe price ids.
 * The defaults below apply unless the operator names a `PLANS_FILE` (see `parsePlansFile`).
 */

/** The site organization (ADR 23): Formgate's own forms (example, waitlist, feedback), under no plan's limits. */
export const SITE_ORG_ID = 'formgate-site';

/**
 * What a plan lists beyond its limits, for the pricing page. Descriptive: no feature is gated yet, so the defaults
 * list only what every plan really has (plans differ by their limits), and an operator's plans file should too.
 */
export const PLAN_FEATURES = ['webhooks', 'file-uploads', 'custom-smtp', 'autoresponse', 'priority-support'] as const;
export type PlanFeature = (typeof PLAN_FEATURES)[number];

const count = z.number().int().nonnegative();
/** The longest retention anyone can set, in days (ten years). */
export const RETENTION_DAYS_MAX = 3_650;
/** `null`: no limit. */
const optionalLimit = count.nullable().default(null);

export const PlanLimitsSchema = z.object({
  /** Submissions per organization per billing period before new ones are held. */
  submissionsPerMonth: count,
  /** Notification emails per organization per billing period before new ones are deferred. */
  emailsPerMonth: count,
  forms: optionalLimit,
  members: optionalLimit,
  /** File storage, in MiB. */
  fileStorageMb: optionalLimit,
  /** The largest file a submission may carry, in MiB (issue 33); `null`: the deployment's limit (100 MiB). */
  maxFileMb: optionalLimit,
  /**
   * The longest a submission is kept, in days (issue 31): submissions older are deleted with everything derived
   * from them, whatever a form or the organization asks. `null`: as long as the owner wants.
   */
  retentionDays: count.min(1).max(RETENTION_DAYS_MAX).nullable().default(null),
});

export const PlanSchema = z.object({
  id: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9-]{0,39}$/,
      'a plan id is 1 to 40 lowercase letters, digits or dashes, not starting with a dash',
    ),
  name: z.string().trim().min(1).max(60),
  description: z.string().max(300).default(''),
  /** Prices in the currency's minor unit (cents); 0 is free. */
  prices: z
    .object({ monthly: count.default(0), yearly: count.default(0), currency: z.string().length(3).default('usd') })
    .default({ monthly: 0, yearly: 0, currency: 'usd' }),
  /** Stripe price ids; a plan without `monthly` cannot be bought (the free plan, or one the operator sells by hand). */
  stripe: z
    .object({ monthlyPriceId: z.string().min(1).optional(), yearlyPriceId: z.string().min(1).optional() })
    .default({}),
  /** Days of free trial on the first subscription; 0 is none. */
  trialDays: count.max(730).default(0),
  limits: PlanLimitsSchema,
  features: z.array(z.enum(PLAN_FEATURES)).default([]),
});

export type Plan = z.infer<typeof PlanSchema>;
export type PlanLimits = z.infer<typeof PlanLimitsSchema>;

export const PlansFileSchema = z
  .object({ defaultPlan: z.string().min(1), plans: z.array(PlanSchema).min(1) })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.plans.forEach((plan, i) => {
      if (seen.has(plan.id)) {
        ctx.addIssue({ code: 'custom', path: ['plans', i, 'id'], message: `plan id "${plan.id}" appears twice` });
      }
      seen.add(plan.id);
    });
    if (!seen.has(file.defaultPlan)) {
      ctx.addIssue({
        code: 'custom',
        path: ['defaultPlan'],
        message: `defaultPlan "${file.defaultPlan}" is not one of the plans`,
      });
    }
  });

export type PlansFile = z.infer<typeof PlansFileSchema>;

/** Sensible defaults: a free plan to start, pro for a growing team, business for volume. */
export const DEFAULT_PLANS: PlansFile = PlansFileSchema.parse({
  defaultPlan: 'free',
  plans: [
    {
      id: 'free',
      name: 'Free',
      description: 'For side projects and trying Formgate out.',
      limits: {
        submissionsPerMonth: 100,
        emailsPerMonth: 100,
        forms: 3,
        members: 2,
        fileStorageMb: 100,
        maxFileMb: 10,
        retentionDays: 365,
      },
      features: ['webhooks', 'file-uploads', 'autoresponse'],
    },
    {
      id: 'pro',
      name: 'Pro',
      description: 'For a startup with real traffic.',
      prices: { monthly: 1500, yearly: 15000 },
      trialDays: 14,
      limits: { submissionsPerMonth: 5_000, emailsPerMonth: 5_000, forms: 50, members: 10, fileStorageMb: 10_240 },
      features: ['webhooks', 'file-uploads', 'autoresponse'],
    },
    {
      id: 'business',
      name: 'Business',
      description: 'For volume and many teams.',
      prices: { monthly: 7500, yearly: 75000 },
      limits: {
        submissionsPerMonth: 50_000,
        emailsPerMonth: 50_000,
        forms: null,
        members: null,
        fileStorageMb: 102_400,
      },
      features: ['webhooks', 'file-uploads', 'autoresponse', 'priority-support'],
    },
  ],
});

/**
 * Parses a plans file's text. Returns every problem (not just the first) so a bad file can stop the boot with a
 * list an operator can fix in one go.
 */
export function parsePlansFile(text: string): { ok: true; plans: PlansFile } | { ok: false; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [`not JSON: ${(err as Error).message}`] };
  }
  const result = PlansFileSchema.safeParse(json);
  if (result.success) return { ok: true, plans: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(file)'}: ${i.message}`),
  };
}

/** `GET /api/v1/plans` (public). `billingEnabled` is false when the instance has no Stripe keys. */
export const PlansResponseDtoSchema = z.object({
  data: z.array(PlanSchema),
  defaultPlan: z.string(),
  billingEnabled: z.boolean(),
});
export type PlansResponseDto = z.infer<typeof PlansResponseDtoSchema>;
