import { createKafkaBus } from '@formgate/bus';
import { createLogger, exitOnBootFailure, serveUntilSignal, systemClock, systemIds } from '@formgate/kit';
import { connectMongo, createGridFsBlobStore } from '@formgate/store';
import { loadIngestConfig } from './config.ts';
import { createIngestService } from './create-service.ts';

try {
  const config = loadIngestConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'ingest' }).child({ instance: config.INSTANCE_ID });
  const bus = createKafkaBus({
    brokers: config.KAFKA_BROKERS,
    clientId: `ingest-${config.INSTANCE_ID}`,
    onError: (err, context) => logger.warn({ err, context }, 'kafka'),
  });
  // Ingest owns no database; uploaded files go to the shared file store.
  const conn = await connectMongo(config.MONGO_URL, `${config.MONGO_DB_PREFIX}_files`);
  const service = createIngestService({
    bus,
    blobs: createGridFsBlobStore(conn),
    clock: systemClock,
    ids: systemIds,
    logger,
    publicBaseUrl: config.PUBLIC_URL.replace(/\/$/, ''),
  });
  await service.start();
  await serveUntilSignal({
    name: 'ingest',
    handler: (req, res) => (req.url === '/healthz' ? service.app(req, res) : service.handle(req, res)),
    port: config.PORT,
    host: config.HOST,
    logger,
    closables: [service, { stop: () => bus.close() }, { stop: () => conn.close() }],
  });
} catch (err) {
  exitOnBootFailure(err);
}
