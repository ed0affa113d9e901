import type { SiteConfig } from '@formgate/contracts';
import { z } from 'zod';

/** A site form: a form key of this instance (`/f/{key}`) or an absolute http(s) endpoint elsewhere. */
const siteForm = z
  .string()
  .trim()
  .regex(/^(https?:\/\/\S+|[A-Za-z0-9_-]{1,64})$/, 'a form key or an http(s) URL')
  .optional();

/** Env of the public site, shared by the embedded host and the distributed gateway. */
export const siteEnv = {
  /** The form that receives the dashboard's "Share Feedback" (multipart `email` + `feedback`). */
  SITE_FEEDBACK_FORM: siteForm,
  /** The form whose submissions are the waitlist (`/waitlist`). */
  SITE_WAITLIST_FORM: siteForm,
  /** The form the homepage's live example posts to. */
  SITE_EXAMPLE_FORM: siteForm,
  /** The plan's display price on `/pricing` ("Free" when unset). */
  SITE_PLAN_PRICE: z.string().trim().min(1).max(40).optional(),
};

type SiteEnv = { [K in keyof typeof siteEnv]?: string | undefined };

const endpointOf = (value: string | undefined) =>
  !value ? null : /^https?:\/\//.test(value) ? value : `/f/${encodeURIComponent(value)}`;

/**
 * The public configuration from the env, the plan limits billing enforces and the site forms provisioned in the
 * instance's own organization (ADR 23). A `SITE_*_FORM` setting wins over the provisioned form.
 */
export function siteConfigFrom(
  env: SiteEnv,
  limits: { submissionsPerMonth: number; emailsPerMonth: number },
  provisioned?: Partial<Record<'feedback' | 'waitlist' | 'example', string>> | null,
): SiteConfig {
  return {
    productName: 'Formgate',
    plans: [{ id: 'standard', name: 'Standard', price: env.SITE_PLAN_PRICE ?? null, ...limits }],
    forms: {
      feedback: endpointOf(env.SITE_FEEDBACK_FORM || provisioned?.feedback),
      waitlist: endpointOf(env.SITE_WAITLIST_FORM || provisioned?.waitlist),
      example: endpointOf(env.SITE_EXAMPLE_FORM || provisioned?.example),
    },
  };
}
