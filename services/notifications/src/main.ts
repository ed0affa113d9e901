import { commonEnv, createLogger, exitOnBootFailure, parseConfig, serveUntilSignal } from '@formgate/kit';
import { z } from 'zod';
import { createNotificationsService } from './create-service.ts';

try {
  const config = parseConfig(
    z.object({
      ...commonEnv,
      PORT: z.coerce.number().int().min(0).max(65535).default(4004),
      HOST: z.string().default('0.0.0.0'),
    }),
    process.env,
  );
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
