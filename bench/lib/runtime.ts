import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './processes.ts';

/**
 * Which Node the bench measures on (ADR 83). `production`, the default: the production image's Node (Node 24,
 * fetched and cached by `infra/local/node24.sh`), B0 and B1 included. `system`: the Node running `pnpm bench`.
 */
export type BenchNode = 'production' | 'system';

export function parseBenchNode(value: string | undefined): BenchNode {
  if (value === undefined || value === 'production') return 'production';
  if (value === 'system') return 'system';
  throw new Error('--node must be production or system');
}

const NODE24 = join(REPO_ROOT, 'infra/local/node24.sh');

/** Runs `infra/local/node24.sh <args>`, failing with its own message (it names the log to read). */
function node24(args: string[]): string {
  const run = spawnSync('bash', [NODE24, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) {
    throw new Error(
      `infra/local/node24.sh ${args[0]} failed: the production image's Node is not available here (measure on this machine's Node with --node system)`,
    );
  }
  return run.stdout.trim();
}

/** Where the production image's Node is (its bin directory), fetched once, and its version. */
export function productionNode(): { bin: string; version: string } {
  const bin = node24(['install']).split('\n').at(-1) ?? '';
  const version = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!version.startsWith('v')) throw new Error(`no node in ${bin}`);
  return { bin, version };
}

/**
 * The bench again, on the production image's Node: in a copy of this checkout installed with it
 * (`node24.sh prepare`: node_modules holds better-sqlite3 built for one Node ABI), with `--node system` so that the
 * copy measures where it runs. The report is written into this checkout's `bench/` (`BENCH_RESULTS_DIR`), profiles
 * into its `bench/profiles/`. Resolves with the copy's exit code; the copy is removed.
 */
export async function benchOnProductionNode(
  node: { bin: string; version: string },
  args: string[],
  log: (line: string) => void,
): Promise<number> {
  const copy = mkdtempSync(join(tmpdir(), 'formgate-bench-node-'));
  try {
    log(`measuring on Node ${node.version.slice(1)}, the production image's (--node system: this machine's)`);
    node24(['prepare', copy]);
    const child = spawn(
      join(node.bin, 'node'),
      ['--import', 'tsx', join(copy, 'bench/run.ts'), ...args, '--node', 'system'],
      {
        cwd: copy,
        stdio: 'inherit',
        env: {
          ...process.env,
          PATH: `${node.bin}:${process.env.PATH ?? ''}`,
          BENCH_RESULTS_DIR: process.env.BENCH_RESULTS_DIR ?? join(REPO_ROOT, 'bench'),
          BENCH_CPU_PROF_DIR: process.env.BENCH_CPU_PROF_DIR ?? join(REPO_ROOT, 'bench/profiles'),
        },
      },
    );
    // Ctrl-C reaches the copy too (same process group); it stops its servers and exits.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => {});
    return await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 2)));
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
