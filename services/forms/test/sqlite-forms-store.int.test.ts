import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteFormsStore } from '../src/store/sqlite-forms-store.ts';
import { runFormsStoreContract } from './forms-store.contract.ts';

runFormsStoreContract({ name: 'sqlite', create: async () => createSqliteFormsStore(openSqlite(':memory:')) });
