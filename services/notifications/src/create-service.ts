import type { Logger, Service } from '@formgate/kit';
import express from 'express';

export interface NotificationsServiceDeps {
  logger: Logger;
}

/**
 * The notifications service. It owns no routes or consumers yet: its capabilities arrive with their own issues, and the
 * gateway's route table has no entry for it until then.
 */
export function createNotificationsService(_deps: NotificationsServiceDeps): Service {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  return { name: 'notifications', app, start: async () => {}, stop: async () => {} };
}
