import { createKafkaBus } from '@formgate/bus';
import { createIdentityCodec, createLogger, exitOnBootFailure, serveUntilSignal, systemClock } from '@formgate/kit';
import { connectMongo } from '@formgate/store';
import { loadBillingConfig } from './config.ts';
import { createBillingService } from './create-service.ts';
import { createMongoUsageStore } from './store/mongo-usage-store.ts';

try {
  const config = loadBillingConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'billing' }).child({ instance: config.INSTANCE_ID });
  const bus = createKafkaBus({
    brokers: config.KAFKA_BROKERS,
    clientId: `billing-${config.INSTANCE_ID}`,
    onError: (err, context) => logger.warn({ err, context }, 'kafka'),
  });
  const conn = await connectMongo(config.MONGO_URL, `${config.MONGO_DB_PREFIX}_billing`);
  const service = createBillingService({
    store: await createMongoUsageStore(conn),
    bus,
    clock: systemClock,
    logger,
    identity: createIdentityCodec(config.IDENTITY_SECRET),
    plans: {
      submissionsPerMonth: () => config.BILLING_SUBMISSIONS_PER_MONTH,
      emailsPerMonth: () => config.BILLING_EMAILS_PER_MONTH,
    },
  });
  await service.start();
  await serveUntilSignal({
    name: 'billing',
    handler: service.app,
    port: config.PORT,
    host: config.HOST,
    logger,
    closables: [service, { stop: () => bus.close() }, { stop: () => conn.close() }],
  });
} catch (err) {
  exitOnBootFailure(err);
}
