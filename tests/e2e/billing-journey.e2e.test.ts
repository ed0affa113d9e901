import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { describeBillingJourney } from '../browser/billing-journey.ts';
import { startDistributed } from '../harness/processes.ts';
import { BILLING_JOURNEY_PLANS_FILE, type StripeStandIn, startStripeStandIn } from '../harness/stripe-stand-in.ts';
import { buildWeb } from '../harness/web-build.ts';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS;
const MONGO_URL = process.env.MONGO_URL;
if (!KAFKA_BROKERS || !MONGO_URL) {
  throw new Error('KAFKA_BROKERS and MONGO_URL must be set (the e2e global setup provides them)');
}

/**
 * Issue 13's billing journey on the distributed processes (two ingest instances, Kafka, FerretDB): the gateway takes
 * payments through stripe-mock, billing knows the instance takes payments, every process reads the journey's plans.
 */
let cluster: Awaited<ReturnType<typeof startDistributed>>;
let stripe: StripeStandIn;
let webDir: string;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  webDir = await buildWeb();
  cluster = await startDistributed({
    kafkaBrokers: KAFKA_BROKERS,
    mongoUrl: MONGO_URL,
    plansFile: BILLING_JOURNEY_PLANS_FILE,
    gatewayEnv: { WEB_DIR: webDir, ...stripe.env },
    billingEnv: { BILLING_ENABLED: 'true' },
  });
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
  await stripe?.stop();
  if (webDir) rmSync(webDir, { recursive: true, force: true });
});

describeBillingJourney('distributed', () => ({
  url: cluster.baseUrl,
  mailLink: (email, subject) => cluster.mailLink(email, subject),
  stripe,
}));
