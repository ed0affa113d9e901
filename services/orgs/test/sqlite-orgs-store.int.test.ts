import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteOrgsStore } from '../src/store/sqlite-orgs-store.ts';
import { runOrgsStoreContract } from './orgs-store.contract.ts';

runOrgsStoreContract({ name: 'sqlite', create: async () => createSqliteOrgsStore(openSqlite(':memory:')) });
