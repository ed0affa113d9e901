import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteRecipientStore } from '../src/recipients/sqlite-recipient-store.ts';
import { runRecipientStoreContract } from './recipient-store.contract.ts';

runRecipientStoreContract({ name: 'sqlite', create: async () => createSqliteRecipientStore(openSqlite(':memory:')) });
