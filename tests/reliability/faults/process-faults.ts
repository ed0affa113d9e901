import { type RunningProcess, stopProcess } from '../../harness/processes.ts';

/** `kill -9` a process the harness started, and wait until it is gone. */
export async function kill9(p: RunningProcess): Promise<void> {
  await stopProcess(p, 'SIGKILL');
}

/**
 * `kill -STOP` the process for `ms`, running `during` meanwhile, then `kill -CONT` — always, even when `during`
 * throws, so a failed test never leaves a frozen process behind. Returns what `during` returned.
 */
export async function whilePaused<T>(p: RunningProcess, ms: number, during: () => Promise<T>): Promise<T> {
  const pid = p.child.pid;
  if (pid === undefined || p.child.exitCode !== null) throw new Error(`${p.name} is not running`);
  const until = Date.now() + ms;
  process.kill(pid, 'SIGSTOP');
  try {
    const result = await during();
    if (until > Date.now()) await new Promise((r) => setTimeout(r, until - Date.now()));
    return result;
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

/** A deterministic shuffle (seeded, so a failing order can be replayed from the printed seed). */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
