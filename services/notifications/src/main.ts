import { createLogger, exitOnBootFailure, serveUntilSignal } from '@formgate/kit';
import { loadNotificationsConfig } from './config.ts';
import { createNotificationsService } from './create-service.ts';

try {
  const config = loadNotificationsConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'notifications' });
  const service = createNotificationsService({ logger });
  await service.start();
  await serveUntilSignal({
    name: 'notifications',
    handler: service.app,
    port: config.PORT,
    host: config.HOST,
    logger,
    closables: [service],
  });
} catch (err) {
  exitOnBootFailure(err);
}
