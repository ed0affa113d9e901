import type { Logger, Service } from '@formgate/kit';
import express from 'express';

export interface OrgsServiceDeps {
  logger: Logger;
}

/**
 * The orgs service. It owns no routes or consumers yet: its capabilities arrive with their own issues, and the
 * gateway's route table has no entry for it until then.
 */
export function createOrgsService(_deps: OrgsServiceDeps): Service {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  return { name: 'orgs', app, start: async () => {}, stop: async () => {} };
}
