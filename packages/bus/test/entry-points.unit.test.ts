import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../../..');

/** CommonJS packages (kafkajs and better-sqlite3 are) that a fresh Node process has loaded after importing `entry`. */
async function packagesLoadedBy(entry: string): Promise<string[]> {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    await import(${JSON.stringify(entry)});
    const names = Object.keys(require.cache).map((f) => f.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(?!.*node_modules)/)?.[1]);
    process.stdout.write(JSON.stringify([...new Set(names.filter(Boolean))]));
  `;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    timeout: 60_000,
  });
  return JSON.parse(stdout) as string[];
}

// Each test starts Node processes (tsx): seconds on a loaded 2-core machine, beyond the unit default of 5 s.
describe('@formgate/bus entry points', { timeout: 60_000 }, () => {
  it('the port (@formgate/bus) loads neither kafkajs nor better-sqlite3', async () => {
    const loaded = await packagesLoadedBy('@formgate/bus');
    expect(loaded).not.toContain('kafkajs');
    expect(loaded).not.toContain('better-sqlite3');
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
