import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@formgate/store';
import { createSqliteBus } from '../src/sqlite-bus.ts';
import { runBusContract } from './bus.contract.ts';

runBusContract({
  name: 'embedded (SQLite log)',
  create: async () => createSqliteBus(openSqlite(join(mkdtempSync(join(tmpdir(), 'fg-bus-')), 'bus.db'))),
  deliveryTimeoutMs: 5_000,
});
