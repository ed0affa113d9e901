import { createKafkaBus } from '@formgate/bus';
import {
  createIdentityCodec,
  createLogger,
  exitOnBootFailure,
  serveUntilSignal,
  systemClock,
  systemIds,
} from '@formgate/kit';
import { connectMongo } from '@formgate/store';
import { loadFormsConfig } from './config.ts';
import { createFormsService } from './create-service.ts';
import { createMongoFormsStore } from './store/mongo-forms-store.ts';

try {
  const config = loadFormsConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'forms' }).child({ instance: config.INSTANCE_ID });
  const bus = createKafkaBus({
    brokers: config.KAFKA_BROKERS,
    clientId: `forms-${config.INSTANCE_ID}`,
    onError: (err, context) => logger.warn({ err, context }, 'kafka'),
  });
  const conn = await connectMongo(config.MONGO_URL, `${config.MONGO_DB_PREFIX}_forms`);
  const service = createFormsService({
    store: await createMongoFormsStore(conn),
    bus,
    clock: systemClock,
    ids: systemIds,
    logger,
    identity: createIdentityCodec(config.IDENTITY_SECRET),
  });
  await service.start();
  await serveUntilSignal({
    name: 'forms',
    handler: service.app,
    port: config.PORT,
    host: config.HOST,
    logger,
    closables: [service, { stop: () => bus.close() }, { stop: () => conn.close() }],
  });
} catch (err) {
  exitOnBootFailure(err);
}
