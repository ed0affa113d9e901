import type { SqliteMigration } from '@formgate/store/sqlite';

/**
 * Organization event outbox rows written before their topic, state and time were required get what the relay used
 * to assume for them: topic `orgs.organization`, state `ready`, time 0. better-auth's migrations make the table (and
 * never alter a column of an existing one), so this runs after them.
 */
export const completeOutboxRows: SqliteMigration = {
  version: 1,
  name: 'complete organization event outbox rows of the previous shape',
  up: (db) =>
    db.exec(`
UPDATE orgEventOutbox SET topic = 'orgs.organization' WHERE topic IS NULL;
UPDATE orgEventOutbox SET state = 'ready' WHERE state IS NULL;
UPDATE orgEventOutbox SET recordedAt = 0 WHERE recordedAt IS NULL;
`),
};
