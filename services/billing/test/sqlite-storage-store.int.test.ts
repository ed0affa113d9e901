import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteStorageStore } from '../src/store/sqlite-storage-store.ts';
import { runStorageStoreContract } from './storage-store.contract.ts';

const db = openSqlite(':memory:');
runStorageStoreContract({ name: 'sqlite', create: async () => createSqliteStorageStore(db) });
