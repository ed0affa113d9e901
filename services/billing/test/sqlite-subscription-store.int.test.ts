import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteSubscriptionStore } from '../src/store/sqlite-subscription-store.ts';
import { runSubscriptionStoreContract } from './subscription-store.contract.ts';

const db = openSqlite(':memory:');
runSubscriptionStoreContract({ name: 'sqlite', create: async () => createSqliteSubscriptionStore(db) });
