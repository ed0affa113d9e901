import { openSqlite } from '@formgate/store/sqlite';
import { releaseHeldSuite } from './release-held.suite.ts';
import { openSqliteFormsStores } from './sqlite-stores.ts';

const db = openSqlite(':memory:');
releaseHeldSuite('sqlite', async () => openSqliteFormsStores(db));
