import { once } from 'node:events';
import net from 'node:net';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { type FileScanner, ScannerUnavailableError, type ScanVerdict } from './file-scanner.ts';

/** clamd's INSTREAM chunks; its `StreamMaxLength` counts their sum. */
const CHUNK_BYTES = 64 * 1024;
/** clamd's default `StreamMaxLength` (25M). */
export const CLAMD_DEFAULT_STREAM_MAX_BYTES = 25 * 1024 * 1024;
const PING_TIMEOUT_MS = 2_000;

export interface ClamavOptions {
  /** clamd's socket: an absolute path (`LocalSocket`) or `host:port` (`TCPSocket`). */
  address: string;
  /** Silence from clamd longer than this gives up the scan (retried later). */
  timeoutMs?: number;
  /**
   * clamd's `StreamMaxLength` in bytes (`CLAMAV_MAX_FILE_BYTES`; clamd's default 25 MiB): a larger file is answered
   * `failed` without being sent. clamd closes the connection past its limit, and its answer can be lost with it.
   */
  maxBytes?: number;
}

/** `CLAMAV_ADDRESS` as `net.connect` takes it; throws on anything else. */
export function clamavTarget(address: string): net.NetConnectOpts {
  if (address.startsWith('/')) return { path: address };
  const match = /^([\w.-]+|\[[0-9a-f:]+\]):(\d{1,5})$/i.exec(address);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65_535) throw new Error('CLAMAV_ADDRESS must be a socket path or host:port');
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
}

const validAddress = (address: string) => {
  try {
    clamavTarget(address);
    return true;
  } catch {
    return false;
  }
};

/** The setting of the hosts that run the forms service. */
export const clamavEnv = {
  /**
   * clamd's socket (`/run/clamav/clamd.ctl`, or `clamav:3310`): every uploaded file is scanned for malware before it
   * can be downloaded (docs/operations.md, "Malware scanning"). Unset: files are not scanned.
   */
  CLAMAV_ADDRESS: z.string().refine(validAddress, 'CLAMAV_ADDRESS must be a socket path or host:port').optional(),
  /** clamd's `StreamMaxLength`, in bytes: a larger file is quarantined as not scannable. Raise both together. */
  CLAMAV_MAX_FILE_BYTES: z.coerce.number().int().positive().default(CLAMD_DEFAULT_STREAM_MAX_BYTES),
};

/**
 * `FileScanner` over clamd's socket protocol (`zINSTREAM`): the file is streamed in chunks, never written to disk
 * here, and clamd answers `stream: OK`, `stream: <signature> FOUND`, or an error. clamd's `StreamMaxLength` must be
 * at least the largest file Formgate accepts: a larger file is answered `failed` (never downloadable).
 */
export function createClamavScanner(options: ClamavOptions): FileScanner {
  const target = clamavTarget(options.address);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxBytes = options.maxBytes ?? CLAMD_DEFAULT_STREAM_MAX_BYTES;
  return {
    async scan(data, size) {
      if (size > maxBytes) {
        data.destroy();
        return {
          status: 'failed',
          reason: `larger than the scanner's limit (${maxBytes} bytes, clamd StreamMaxLength)`,
        };
      }
      return instream(target, data, timeoutMs);
    },
    async ping() {
      try {
        return (await command(target, 'zPING\0')) === 'PONG';
      } catch {
        return false;
      }
    },
  };
}

/** clamd's answer to a scan, `\0` and whitespace trimmed. */
function verdictOf(reply: string): ScanVerdict {
  if (reply === 'stream: OK') return { status: 'clean' };
  const found = /^stream: (.+) FOUND$/.exec(reply);
  if (found) return { status: 'infected', signature: found[1] as string };
  if (/size limit exceeded/i.test(reply)) {
    return { status: 'failed', reason: "larger than the scanner's limit (clamd StreamMaxLength)" };
  }
  // Not a verdict: clamd failed (out of memory, a database reload…): retried.
  throw new ScannerUnavailableError(`clamd answered ${JSON.stringify(reply.slice(0, 200))}`);
}

function instream(target: net.NetConnectOpts, data: Readable, timeoutMs: number): Promise<ScanVerdict> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(target);
    const stop = new AbortController();
    let reply = '';
    let settled = false;
    const settle = (outcome: () => ScanVerdict) => {
      if (settled) return;
      settled = true;
      try {
        resolve(outcome());
      } catch (err) {
        reject(err);
      }
      stop.abort();
      socket.destroy();
      data.destroy();
    };
    const unavailable = (reason: string) => () => {
      throw new ScannerUnavailableError(reason);
    };
    // A complete answer wins over whatever else happens (clamd closes the socket on a size limit while we write).
    const answered = () => {
      const end = reply.indexOf('\0');
      return end >= 0 ? reply.slice(0, end).trim() : null;
    };
    socket.setTimeout(timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      reply += chunk;
      const answer = answered();
      if (answer !== null) settle(() => verdictOf(answer));
    });
    socket.on('end', () => {
      const answer = answered() ?? reply.trim();
      settle(answer ? () => verdictOf(answer) : unavailable('clamd closed the connection without an answer'));
    });
    socket.on('timeout', () => settle(unavailable(`no answer from clamd within ${timeoutMs} ms`)));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const answer = answered();
      settle(answer !== null ? () => verdictOf(answer) : unavailable(err.code ?? err.message));
    });
    socket.once('connect', async () => {
      try {
        socket.write('zINSTREAM\0');
        for await (const chunk of data as AsyncIterable<Buffer>) {
          for (let at = 0; at < chunk.length; at += CHUNK_BYTES) {
            if (settled) return;
            const part = chunk.subarray(at, at + CHUNK_BYTES);
            const length = Buffer.allocUnsafe(4);
            length.writeUInt32BE(part.length);
            socket.write(length);
            if (!socket.write(part)) await once(socket, 'drain', { signal: stop.signal });
          }
        }
        if (!settled) socket.write(Buffer.alloc(4));
      } catch {
        // The file could not be read (its store failed), or the scan already ended (`stop` aborted the wait).
        settle(unavailable('the file could not be read to the end'));
      }
    });
  });
}

function command(target: net.NetConnectOpts, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(target);
    let reply = '';
    socket.setTimeout(PING_TIMEOUT_MS, () => socket.destroy(new Error('timeout')));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      reply += chunk;
    });
    socket.on('end', () => resolve(reply.replace(/\0$/, '').trim()));
    socket.on('error', reject);
    socket.end(text);
  });
}
