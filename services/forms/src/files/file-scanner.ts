import type { Readable } from 'node:stream';

/** What a scanner concluded about one file. */
export type ScanVerdict =
  | { status: 'clean' }
  | { status: 'infected'; signature: string }
  /** The scanner read the file but will not judge it (for example: over its size limit). Retrying changes nothing. */
  | { status: 'failed'; reason: string };

/**
 * A malware scanner (issue 33). Guarantees every adapter keeps:
 * - `scan` reads `data` (`size` bytes, as stored) to its end and resolves a verdict about those bytes only; a file
 *   larger than the scanner takes is answered `failed` without being sent;
 * - it rejects with `ScannerUnavailableError` whenever no verdict was reached — the scanner is down, unreachable,
 *   too slow, or `data` itself failed: the caller retries later, never treating the file as clean;
 * - scans may run concurrently; each is independent.
 */
export interface FileScanner {
  scan(data: Readable, size: number): Promise<ScanVerdict>;
  /** Whether the scanner answers now (health checks). Never throws. */
  ping(): Promise<boolean>;
}

/** No verdict now: the scan is retried later (the bus retries a batch that throws it, without limit). */
export class ScannerUnavailableError extends Error {
  readonly retryable = true;
  constructor(reason: string) {
    super(`malware scanner unavailable: ${reason}`);
    this.name = 'ScannerUnavailableError';
  }
}
