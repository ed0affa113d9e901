import { defineConfig, serviceEnv } from '@formgate/kit';
import { z } from 'zod';

export const loadBillingConfig = defineConfig(
  z.object({
    ...serviceEnv,
    PORT: serviceEnv.PORT.default(4003),
    /** The plan limit until Stripe plans land: submissions per organization per calendar month. */
    BILLING_SUBMISSIONS_PER_MONTH: z.coerce.number().int().positive().default(50_000),
    BILLING_EMAILS_PER_MONTH: z.coerce.number().int().nonnegative().default(1_000),
  }),
);
