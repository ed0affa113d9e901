import { createSqliteRecipientStore } from '../src/recipients/sqlite-recipient-store.ts';
import { migratedSqlite } from './notifications-db.ts';
import { runRecipientStoreContract } from './recipient-store.contract.ts';

runRecipientStoreContract({ name: 'sqlite', create: async () => createSqliteRecipientStore(migratedSqlite()) });
