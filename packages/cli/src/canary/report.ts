import { rename, writeFile } from 'node:fs/promises';
import type { CanaryResult } from './run.ts';

/** The run as an operator reads it: one line per check, then cleanup and the verdict. */
export function formatResult(r: CanaryResult): string {
  const lines = [`formgate canary ${r.runId}: form ${r.formId}, ${r.startedAt}, deadline ${r.deadlineMs} ms`];
  for (const c of r.checks) {
    const took = c.ms === null ? '' : `${c.ms} ms  `;
    lines.push(`${c.check.padEnd(10)} ${c.status.padEnd(8)} ${took}${c.detail}`);
  }
  lines.push(`${'cleanup'.padEnd(10)} ${(r.cleanup.ok ? 'passed' : 'failed').padEnd(8)} ${r.cleanup.detail}`);
  lines.push(r.ok ? 'canary passed' : `canary failed${r.interrupted ? ' (interrupted)' : ''}`);
  return lines.join('\n');
}

const label = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/**
 * The run in Prometheus' text exposition format, for node_exporter's textfile collector. Every series carries the
 * form, so canaries of several forms can write files side by side. A check that did not pass has no duration.
 */
export function formatMetrics(r: CanaryResult, now: Date): string {
  const form = `form="${label(r.formId)}"`;
  const gauge = (name: string, help: string, samples: string[]) =>
    [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, ...samples].join('\n');
  return `${[
    gauge('formgate_canary_success', 'Whether the last canary run passed every check and cleaned up (1) or not (0).', [
      `formgate_canary_success{${form}} ${r.ok ? 1 : 0}`,
    ]),
    gauge(
      'formgate_canary_duration_seconds',
      'Seconds from sending the canary submission until the check was seen passed, in the last run.',
      r.checks
        .filter((c) => c.ms !== null)
        .map((c) => `formgate_canary_duration_seconds{${form},check="${c.check}"} ${(c.ms ?? 0) / 1000}`),
    ),
    gauge('formgate_canary_cleanup_success', 'Whether the last run deleted its submission (1) or left it (0).', [
      `formgate_canary_cleanup_success{${form}} ${r.cleanup.ok ? 1 : 0}`,
    ]),
    gauge('formgate_canary_last_run_timestamp_seconds', 'When the last canary run ended (Unix time).', [
      `formgate_canary_last_run_timestamp_seconds{${form}} ${Math.floor(now.getTime() / 1000)}`,
    ]),
  ].join('\n')}\n`;
}

/**
 * Replaces `file` at once (a temporary file beside it, then a rename): the collector never reads half a file. The
 * temporary name does not end in `.prom`, so the collector never reads it either.
 */
export async function writeMetricsFile(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text, 'utf8');
  await rename(tmp, file);
}
