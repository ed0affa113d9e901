import { defineConfig, serviceEnv } from '@formgate/kit';
import { z } from 'zod';

/** Billing's share of a host's env: the plans in force. */
export const billingEnv = {
  /** A JSON file of plans replacing the defaults (`parsePlansFile`); a bad file stops the boot listing every problem. */
  PLANS_FILE: z.string().min(1).optional(),
};

export const loadBillingConfig = defineConfig(
  z.object({
    ...serviceEnv,
    ...billingEnv,
    PORT: serviceEnv.PORT.default(4003),
    /** The instance takes payments (the gateway has `STRIPE_SECRET_KEY`); billing itself never holds the key. */
    BILLING_ENABLED: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
  }),
);
