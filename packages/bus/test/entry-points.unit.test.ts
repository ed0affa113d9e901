import { resolve } from 'node:path';
import { packagesLoadedBy as loadedFrom } from '@formgate/kit/testing';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const packagesLoadedBy = (entry: string) => loadedFrom(entry, ROOT);

// Each test starts Node processes (tsx): seconds on a loaded 2-core machine, beyond the unit default of 5 s.
describe('@formgate/bus entry points', { timeout: 60_000 }, () => {
  it('the port (@formgate/bus) and the bus across a MessagePort (@formgate/bus/port) load neither driver', async () => {
    const loaded = await Promise.all([packagesLoadedBy('@formgate/bus'), packagesLoadedBy('@formgate/bus/port')]);
    expect(loaded.flat()).not.toContain('kafkajs');
    expect(loaded.flat()).not.toContain('better-sqlite3');
  });

  it('@formgate/bus/kafka loads kafkajs and not better-sqlite3; @formgate/bus/sqlite the reverse', async () => {
    const [kafka, sqlite] = await Promise.all([
      packagesLoadedBy('@formgate/bus/kafka'),
      packagesLoadedBy('@formgate/bus/sqlite'),
    ]);
    expect(kafka).toContain('kafkajs');
    expect(kafka).not.toContain('better-sqlite3');
    expect(sqlite).toContain('better-sqlite3');
    expect(sqlite).not.toContain('kafkajs');
  });
});
