import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The CommonJS packages (the drivers are: kafkajs, mongodb, better-sqlite3) that a fresh Node process has loaded
 * after importing `entry`, resolved from `cwd` (a directory whose package depends on it). Starts a Node process
 * with tsx: seconds on a loaded machine.
 */
export async function packagesLoadedBy(entry: string, cwd: string): Promise<string[]> {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    await import(${JSON.stringify(entry)});
    const names = Object.keys(require.cache).map((f) => f.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(?!.*node_modules)/)?.[1]);
    process.stdout.write(JSON.stringify([...new Set(names.filter(Boolean))]));
  `;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd,
    timeout: 60_000,
  });
  return JSON.parse(stdout) as string[];
}
