import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_SAMPLES_DIR, RECORDING_MARKER } from './api-recorder.ts';

/**
 * The recording tiers' global setup (int, e2e, browser, reliability): empties `.run/api-samples/` once per vitest
 * run (every tier calls it; a later call sees this process's marker and keeps what the first one's files may already
 * have recorded), and leaves a marker saying that this run records, so the `api-conformance` check insists on
 * samples.
 */
export default function setup(): void {
  const dir = process.env.FORMGATE_API_RECORD || API_SAMPLES_DIR;
  const marker = join(dir, RECORDING_MARKER);
  try {
    if ((JSON.parse(readFileSync(marker, 'utf8')) as { pid: number }).pid === process.pid) return;
  } catch {}
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(marker, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
}
