import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The EICAR test file: every scanner reports it, it harms nothing. Split so this source is not itself flagged.
 * https://www.eicar.org/download-anti-malware-testfile/
 */
export const EICAR = ['X5O!P%@AP[4\\PZX54(P^)7CC)7}$', 'EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*'].join('');
/** What clamd names it from the signature file below (signatures outside its official databases get `.UNOFFICIAL`). */
export const EICAR_SIGNATURE = 'Eicar-Test-Signature.UNOFFICIAL';

export interface TestClamd {
  /** For `CLAMAV_ADDRESS`: the daemon's socket path. */
  address: string;
  /** Stops the daemon (an outage); `start` brings it back on the same socket. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

/**
 * Debian's `clamd` (apt-get install clamav-daemon; `.ci/run` does it), else `CLAMD_PATH`. Throws with the fix when
 * there is none: the scanning tests never skip.
 */
export function clamdPath(): string {
  const fromEnv = process.env.CLAMD_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CLAMD_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  for (const candidate of ['/usr/sbin/clamd', '/usr/bin/clamd']) if (existsSync(candidate)) return candidate;
  try {
    return execFileSync('sh', ['-c', 'command -v clamd'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      "The malware scanning tests need ClamAV's daemon: apt-get install -y clamav-daemon (.ci/run does it), or set CLAMD_PATH.",
    );
  }
}

/**
 * A real clamd on a Unix socket in a directory of its own, whose only database is a signature file written here
 * (the EICAR string as a body signature: found anywhere in a file), since the signature mirror is out of reach.
 * `streamMaxBytes` is clamd's `StreamMaxLength`.
 */
export async function startClamd(options: { streamMaxBytes?: number } = {}): Promise<TestClamd> {
  const binary = clamdPath();
  const dir = mkdtempSync(join(tmpdir(), 'formgate-clamd-'));
  const db = join(dir, 'db');
  mkdirSync(db);
  writeFileSync(join(db, 'formgate-test.ndb'), `Eicar-Test-Signature:0:*:${Buffer.from(EICAR).toString('hex')}\n`);
  const socket = join(dir, 'clamd.sock');
  const config = join(dir, 'clamd.conf');
  writeFileSync(
    config,
    [
      'Foreground yes',
      `LocalSocket ${socket}`,
      `DatabaseDirectory ${db}`,
      `StreamMaxLength ${options.streamMaxBytes ?? 110 * 1024 * 1024}`,
      `LogFile ${join(dir, 'clamd.log')}`,
      `PidFile ${join(dir, 'clamd.pid')}`,
      'SelfCheck 0',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | null = null;
  const start = async () => {
    rmSync(socket, { force: true });
    const proc = spawn(binary, ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child = proc;
    for (let i = 0; i < 200; i++) {
      if (existsSync(socket)) return;
      if (proc.exitCode !== null) break;
      await sleep(50);
    }
    proc.kill('SIGKILL');
    throw new Error(`clamd did not start (exit ${proc.exitCode}): ${stderr.slice(-2000)}`);
  };
  const stop = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    await Promise.race([exited, sleep(5_000).then(() => proc.kill('SIGKILL'))]);
    rmSync(socket, { force: true });
  };
  await start();
  return {
    address: socket,
    start,
    stop,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
