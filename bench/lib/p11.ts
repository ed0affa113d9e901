import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { PAYLOADS } from './payloads.ts';
import { collectGarbage, sleep } from './processes.ts';
import { rssKb, waitForIdle } from './quiesce.ts';

/**
 * P11: the memory an idle keep-alive connection costs a server. N connections are opened to it, each makes one
 * request (the urlencoded payload, `POST /f/{key}`, answered 303) and then stays open, idle; the server's RSS
 * (`VmRSS`) before and after, read once it is idle again, gives ΔRSS per 1,000 connections. The client side is plain
 * `net` sockets and a hand-written HTTP/1.1 request, so the bench process stays small next to what it measures.
 */
export interface P11Settings {
  /** Connections opened per round (each server holds every round's connections until its last round). */
  connections: number;
  rounds: number;
}

/** One server P11 measures: where its requests go, and its pid (RSS is read from /proc). */
export interface P11Target {
  label: string;
  port: number;
  /** Path of the one request each connection makes (`/f/{key}` of a fresh form). */
  path: string;
  pid: number;
}

export interface P11Round {
  connections: number;
  rssBeforeKb: number;
  rssAfterKb: number;
  /** (after − before) / connections × 1,000, in MB (MiB). */
  mbPer1000: number;
  /** Connections the server closed before the "after" reading (must be none: they were not idle then). */
  closedEarly: number;
  /** Requests answered with neither 2xx nor 3xx, or not answered. */
  failed: number;
  /** Time to open every connection and get every answer (ms). */
  openMs: number;
}

/** Bytes of one request: HTTP/1.1 keeps the connection open unless one side says `Connection: close`. */
function requestBytes(port: number, path: string): Buffer {
  const p = PAYLOADS.urlencoded;
  const body = Buffer.from(p.body);
  const head =
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: ${p.contentType}\r\n` +
    `Content-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/**
 * Whether `buf` holds a whole response, and its status: `Content-Length` or chunked bodies; `keepAlive` false when
 * the server announced it will close.
 */
export function parseResponse(buf: string): { status: number; keepAlive: boolean } | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = buf.slice(0, end);
  const status = Number(head.slice(9, 12));
  const keepAlive = !/\r\nconnection:\s*close/i.test(head);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) return buf.length >= end + 4 + Number(length[1]) ? { status, keepAlive } : null;
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const body = buf.slice(end + 4);
    return body === '0\r\n\r\n' || body.endsWith('\r\n0\r\n\r\n') ? { status, keepAlive } : null;
  }
  // No body announced: only a status without one is complete here.
  return status === 204 || status === 304 || (status >= 100 && status < 200) ? { status, keepAlive } : null;
}

/** A client connection: send a request, wait for the whole answer; `closed` once the server hung up. */
class RawConnection {
  closed = false;
  private buf = '';
  private waiting: ((r: { status: number; keepAlive: boolean } | null) => void) | null = null;
  private constructor(private readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buf += chunk;
      const r = parseResponse(this.buf);
      if (r && this.waiting) {
        this.buf = '';
        const done = this.waiting;
        this.waiting = null;
        done(r);
      }
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiting?.(null);
      this.waiting = null;
    });
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Sends `bytes`; resolves with the status (null: the connection closed first or the server announced it would). */
  request(bytes: Buffer): Promise<number | null> {
    return new Promise((resolve) => {
      if (this.closed) return resolve(null);
      this.waiting = (r) => resolve(r?.keepAlive ? r.status : null);
      this.socket.write(bytes);
    });
  }

  destroy() {
    this.socket.destroy();
  }
}

/** Connections opened at once. */
const WAVE = 100;

const ok = (status: number | null) => status !== null && status >= 200 && status < 400;

/** Opens `n` connections to `port`, `concurrency` at a time, each making one request; resolves with them all. */
async function openIdle(port: number, bytes: Buffer, n: number, concurrency = WAVE) {
  const conns: RawConnection[] = [];
  let failed = 0;
  for (let i = 0; i < n; i += concurrency) {
    const wave = await Promise.all(
      Array.from({ length: Math.min(concurrency, n - i) }, async () => {
        const conn = await RawConnection.open(port);
        if (!ok(await conn.request(bytes))) failed++;
        return conn;
      }),
    );
    conns.push(...wave);
  }
  return { conns, failed };
}

/**
 * Before a server's first round: as many requests as one round makes, over as many connections as a round opens at
 * once (a gateway's pool of upstream connections grows to what that takes), which are then closed; so its code is
 * compiled and its heap has grown to what serving them takes. The rounds' connections are kept open (closed only
 * after the last round), so no round reuses memory an earlier round's connections freed.
 */
async function warmUp(target: P11Target, bytes: Buffer, requests: number) {
  const { conns } = await openIdle(target.port, bytes, WAVE, WAVE);
  await Promise.all(
    conns.map(async (c) => {
      for (let i = 0; i < requests / conns.length; i++) await c.request(bytes);
    }),
  );
  for (const c of conns) c.destroy();
}

/** Five readings in a row within this much (KiB) count as settled. */
const STABLE_KB = 256;

/**
 * The RSS once the server is idle and has collected its garbage, so what the requests left behind is not counted:
 * a full collection every second, reading the RSS a second after each, until at least 12 s passed and the last five
 * readings agree within `STABLE_KB` (at most 30 s). V8 keeps the heap it grew under load (a young generation grown
 * while the connections' objects survived) committed through forced collections until the process allocated little
 * for a while, then gives it back in steps: a bare `node:http` server measured on Node 20 held its RSS for 6 s after
 * 2,000 connections, then dropped by 8 MB, then by 1 MB at 10 s, and stayed there. A reading taken earlier counts that
 * give-back against the next round's connections.
 */
async function idleRss(pid: number): Promise<number> {
  await waitForIdle([pid], { timeoutMs: 20_000 });
  const readings: number[] = [];
  for (let i = 0; i < 30; i++) {
    collectGarbage(pid);
    await sleep(1_000);
    const kb = rssKb(pid);
    if (kb === null) throw new Error(`P11: no RSS for pid ${pid} (not Linux, or the server is gone)`);
    readings.push(kb);
    const last = readings.slice(-5);
    if (readings.length >= 12 && Math.max(...last) - Math.min(...last) <= STABLE_KB) break;
  }
  return readings.at(-1) as number;
}

/**
 * Every round of P11 on one server: warm-up, then per round the RSS before, `connections` new idle connections,
 * the RSS after; every connection stays open until the last round was read, then all are closed.
 */
export async function measureP11(target: P11Target, settings: P11Settings): Promise<P11Round[]> {
  const bytes = requestBytes(target.port, target.path);
  await warmUp(target, bytes, settings.connections);
  const held: RawConnection[] = [];
  const rounds: P11Round[] = [];
  try {
    // Nothing happens between one round's "after" reading and the next round's "before": the same reading serves.
    let rssBeforeKb = await idleRss(target.pid);
    for (let round = 0; round < settings.rounds; round++) {
      const started = performance.now();
      const { conns, failed } = await openIdle(target.port, bytes, settings.connections);
      const openMs = performance.now() - started;
      held.push(...conns);
      const rssAfterKb = await idleRss(target.pid);
      const closedEarly = conns.filter((c) => c.closed).length;
      rounds.push({
        connections: conns.length,
        rssBeforeKb,
        rssAfterKb,
        mbPer1000: ((rssAfterKb - rssBeforeKb) / 1024 / conns.length) * 1000,
        closedEarly,
        failed,
        openMs,
      });
      rssBeforeKb = rssAfterKb;
    }
  } finally {
    for (const c of held) c.destroy();
  }
  // Let the server see the connections go before whatever is measured next.
  await waitForIdle([target.pid], { timeoutMs: 20_000 });
  return rounds;
}

/** The soft limit of open files of this process (`ulimit -n`), which the servers it starts inherit; null without /proc. */
export function openFilesLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m?.[1] === 'unlimited' ? Number.POSITIVE_INFINITY : m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * The connections a round can open: the bench process and the server measured each hold every round's at once, so
 * `rounds × connections` plus a margin (the server's own files, the bench's other sockets: 1,024, or a quarter of a
 * smaller limit) must stay under
 * `ulimit -n`, which the servers inherit; lowered to fit, with the reason.
 */
export function fitConnections(wanted: number, rounds: number): { connections: number; lowered?: string } {
  const limit = openFilesLimit();
  const margin = Math.min(1_024, (limit ?? 0) / 4);
  if (limit === null || rounds * wanted + margin <= limit) return { connections: wanted };
  const connections = Math.max(100, Math.floor((limit - margin) / rounds / 100) * 100);
  return {
    connections,
    lowered: `P11: ${connections} connections a round instead of ${wanted}: ulimit -n is ${limit} and ${rounds} round(s) hold theirs at once (raise it with \`ulimit -n\` before \`pnpm bench\`)`,
  };
}

/** The servers P11 compares, in the order they are measured; B0 is the denominator. */
export type P11Server = 'B0' | 'embedded' | 'ingest' | 'gateway';

export type P11Result =
  | { server: P11Server; connections: number; rounds: P11Round[] }
  | { server: P11Server; skipped: string; fails: boolean };

/** How a server is reached, or why it is not measured (`fails`: that counts as a failed floor). */
export type P11Entry =
  | { server: P11Server; target: () => Promise<P11Target> }
  | { server: P11Server; unavailable: { reason: string; fails: boolean } };

/**
 * P11 on every server, one after the other (each server's rounds in a row, holding its connections: memory is not
 * what a busy host's slow patch moves, and the rounds of one server must not overlap with another's connections).
 * Integrity problems (a connection closed early, a request not answered 2xx/3xx) are pushed to `problems`.
 */
export async function runP11(opts: {
  entries: P11Entry[];
  settings: P11Settings;
  problems: string[];
  pids: number[];
  log: (line: string) => void;
}): Promise<P11Result[]> {
  const results: P11Result[] = [];
  for (const entry of opts.entries) {
    if ('unavailable' in entry) {
      results.push({ server: entry.server, skipped: entry.unavailable.reason, fails: entry.unavailable.fails });
      continue;
    }
    await waitForIdle(opts.pids);
    const target = await entry.target();
    const rounds = await measureP11(target, opts.settings);
    rounds.forEach((r, i) => {
      const where = `P11 ${entry.server} round ${i + 1}`;
      if (r.failed) opts.problems.push(`${where}: ${r.failed} of ${r.connections} requests not answered 2xx/3xx`);
      if (r.closedEarly) {
        opts.problems.push(`${where}: the server closed ${r.closedEarly} of ${r.connections} idle connections early`);
      }
      opts.log(
        `round ${i + 1} P11 ${entry.server} (pid ${target.pid}): ${r.connections} idle connections opened in ` +
          `${(r.openMs / 1000).toFixed(1)} s, RSS ${(r.rssBeforeKb / 1024).toFixed(1)} → ${(r.rssAfterKb / 1024).toFixed(1)} MB, ` +
          `${r.mbPer1000.toFixed(2)} MB per 1,000`,
      );
    });
    results.push({ server: entry.server, connections: opts.settings.connections, rounds });
  }
  return results;
}
