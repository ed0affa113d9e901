import { openSqlite } from '@formgate/store/sqlite';
import { retentionSuite } from './retention.suite.ts';
import { openSqliteFormsStores } from './sqlite-stores.ts';

const db = openSqlite(':memory:');
retentionSuite('sqlite', async () => openSqliteFormsStores(db));
