import { z } from 'zod';

/** A plan as the public pricing page shows it; limits are per organization and calendar month. */
export const SitePlanSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** A display price ("Free", "$19"); null when the operator has not set one. */
  price: z.string().nullable(),
  submissionsPerMonth: z.number().int().nonnegative(),
  emailsPerMonth: z.number().int().nonnegative(),
});
export type SitePlan = z.infer<typeof SitePlanSchema>;

/**
 * The instance's public configuration (`GET /api/v1/site`): what the public pages and the dashboard's feedback
 * dialog need before anyone signs in. Each form is an endpoint URL (`/f/{key}` or absolute), or null when this
 * instance has none.
 */
export const SiteConfigSchema = z.object({
  productName: z.string(),
  plans: z.array(SitePlanSchema),
  forms: z.object({
    feedback: z.string().nullable(),
    waitlist: z.string().nullable(),
    example: z.string().nullable(),
  }),
});
export type SiteConfig = z.infer<typeof SiteConfigSchema>;
