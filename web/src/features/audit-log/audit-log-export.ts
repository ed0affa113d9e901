import { csvOf } from '../../lib/csv.ts';
import type { AuditEntryDto } from './audit-log.queries.ts';

export type AuditExportFormat = 'csv' | 'json';

const CSV_HEADER = ['Entry', 'Time (UTC)', 'Type', 'Who', 'User id', 'What', 'Details', 'Entry id', 'Hash'];

/**
 * The entries as a spreadsheet: one row each, with who and what as the screen words them (`who`, `what`) and the
 * entry's own fields; `Details` is its data as JSON. No cell can run as a formula (`csvCell`).
 */
export function auditLogCsv(
  entries: readonly AuditEntryDto[],
  who: (e: AuditEntryDto) => string,
  what: (e: AuditEntryDto) => string,
): string {
  return csvOf(
    CSV_HEADER,
    entries.map((e) => [
      String(e.seq),
      e.occurredAt,
      e.type,
      who(e),
      e.actor?.userId ?? '',
      what(e),
      JSON.stringify(e.data),
      e.id,
      e.hash,
    ]),
  );
}

const localDay = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/**
 * The file an export is saved as, named by the organization and the day: CSV (`auditLogCsv`) or JSON (the entries
 * as the server answered them).
 */
export function auditLogFile(
  format: AuditExportFormat,
  entries: readonly AuditEntryDto[],
  words: { who: (e: AuditEntryDto) => string; what: (e: AuditEntryDto) => string },
  organizationSlug: string,
  now = new Date(),
): { name: string; blob: Blob } {
  const name = `audit-log-${organizationSlug.replace(/[^A-Za-z0-9_-]/g, '_')}-${localDay(now)}.${format}`;
  return format === 'csv'
    ? { name, blob: new Blob([auditLogCsv(entries, words.who, words.what)], { type: 'text/csv' }) }
    : { name, blob: new Blob([JSON.stringify(entries, null, 2)], { type: 'application/json' }) };
}
