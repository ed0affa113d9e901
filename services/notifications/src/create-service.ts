import { createServiceApp, type Logger, type Service } from '@formgate/kit';

export interface NotificationsServiceDeps {
  logger: Logger;
}

/**
 * The notifications service. It owns no routes or consumers yet: its capabilities arrive with their own issues, and the
 * gateway's route table has no entry for it until then.
 */
export function createNotificationsService(_deps: NotificationsServiceDeps): Service {
  const app = createServiceApp();
  return { name: 'notifications', app, start: async () => {}, stop: async () => {} };
}
