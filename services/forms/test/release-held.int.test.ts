import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteFormsStore } from '../src/store/sqlite-forms-store.ts';
import { releaseHeldSuite } from './release-held.suite.ts';

const db = openSqlite(':memory:');
releaseHeldSuite('sqlite', async () => createSqliteFormsStore(db));
