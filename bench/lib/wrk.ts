import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Payload } from './payloads.ts';

/** One wrk run: completed requests per second, and everything that was not a clean answer. */
export interface WrkResult {
  rps: number;
  requests: number;
  durationS: number;
  /** Socket errors, timeouts and answers ≥ 400 (wrk counts 2xx and 3xx as fine). */
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  p50Ms: number;
  p99Ms: number;
}

const RESULT_PREFIX = 'WRKJSON ';

// The body is read from a file so multipart's CRLFs reach the wire untouched (Lua long strings rewrite them).
const LUA = `
local f = assert(io.open(os.getenv("BENCH_BODY_FILE"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = os.getenv("BENCH_CONTENT_TYPE")
local accept = os.getenv("BENCH_ACCEPT")
if accept and accept ~= "" then wrk.headers["Accept"] = accept end
local origin = os.getenv("BENCH_ORIGIN")
if origin and origin ~= "" then wrk.headers["Origin"] = origin end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '${RESULT_PREFIX}{"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50Us":%d,"p99Us":%d}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;

/** Throws a clear message when the wrk binary is missing. */
export function ensureWrk(): string {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (probe.error) {
    throw new Error(
      'wrk is not installed. The bench uses Debian\'s wrk for peak throughput: run "apt-get install -y wrk" ' +
        '(as root; "apt-get update" first on a fresh machine), then "pnpm bench" again.',
    );
  }
  return `${probe.stdout}${probe.stderr}`.split('\n')[0]?.trim() ?? 'wrk';
}

/** Writes the Lua script and the payloads' bodies into `dir` once; returns the script path. */
export function prepareWrk(dir: string, payloads: Payload[]): string {
  for (const p of payloads) writeFileSync(join(dir, `body-${p.name}.bin`), p.body);
  const script = join(dir, 'post.lua');
  writeFileSync(script, LUA);
  return script;
}

function parse(stdout: string): WrkResult {
  const line = stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
  if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
  const r = JSON.parse(line.slice(RESULT_PREFIX.length)) as Record<string, number>;
  const n = (k: string) => r[k] ?? 0;
  const durationS = n('durationUs') / 1e6;
  return {
    rps: n('requests') / durationS,
    requests: n('requests'),
    durationS,
    errors: { connect: n('connect'), read: n('read'), write: n('write'), status: n('status'), timeout: n('timeout') },
    p50Ms: n('p50Us') / 1000,
    p99Ms: n('p99Us') / 1000,
  };
}

/** Runs `wrk -t1 -c<connections> -d<seconds>s` POSTing `payload` to `url` in a child process. */
export function runWrk(opts: {
  url: string;
  payload: Payload;
  seconds: number;
  connections: number;
  workDir: string;
  script: string;
  accept?: string;
  /** Sent as `Origin` (P1s: an origin the form allows). */
  origin?: string;
}): Promise<WrkResult> {
  const args = ['-t1', `-c${opts.connections}`, `-d${opts.seconds}s`, '--timeout', '5s', '-s', opts.script, opts.url];
  const env = {
    ...process.env,
    BENCH_BODY_FILE: join(opts.workDir, `body-${opts.payload.name}.bin`),
    BENCH_CONTENT_TYPE: opts.payload.contentType,
    BENCH_ACCEPT: opts.accept ?? '',
    BENCH_ORIGIN: opts.origin ?? '',
  };
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`wrk exited with ${code}:\n${out}`));
      else {
        try {
          resolve(parse(out));
        } catch (err) {
          reject(err);
        }
      }
    });
  });
}

export function errorCount(r: WrkResult): number {
  const e = r.errors;
  return e.connect + e.read + e.write + e.status + e.timeout;
}
