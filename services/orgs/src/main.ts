import { createKafkaBus } from '@formgate/bus';
import { createIdentityCodec, createLogger, exitOnBootFailure, serveUntilSignal, systemClock } from '@formgate/kit';
import { connectMongo } from '@formgate/store';
import { loadOrgsConfig } from './config.ts';
import { createOrgsService } from './create-service.ts';
import { createMongoOrgsStore } from './store/mongo-orgs-store.ts';

try {
  const config = loadOrgsConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'orgs' }).child({ instance: config.INSTANCE_ID });
  const bus = createKafkaBus({
    brokers: config.KAFKA_BROKERS,
    clientId: `orgs-${config.INSTANCE_ID}`,
    onError: (err, context) => logger.warn({ err, context }, 'kafka'),
  });
  const conn = await connectMongo(config.MONGO_URL, `${config.MONGO_DB_PREFIX}_orgs`);
  const service = createOrgsService({
    store: await createMongoOrgsStore(conn),
    bus,
    clock: systemClock,
    logger,
    identity: createIdentityCodec(config.IDENTITY_SECRET),
  });
  await service.start();
  await serveUntilSignal({
    name: 'orgs',
    handler: service.app,
    port: config.PORT,
    host: config.HOST,
    logger,
    closables: [service, { stop: () => bus.close() }, { stop: () => conn.close() }],
  });
} catch (err) {
  exitOnBootFailure(err);
}
