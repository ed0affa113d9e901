import { createSqliteRecipientStore } from '../src/store/sqlite/index.ts';
import { migratedSqlite } from './notifications-db.ts';
import { runRecipientStoreContract } from './recipients.contract.ts';

runRecipientStoreContract({ name: 'sqlite', create: async () => createSqliteRecipientStore(migratedSqlite()) });
