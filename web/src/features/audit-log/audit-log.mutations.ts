import { useMutation } from '@tanstack/react-query';
import { toast } from 'sonner';
import { saveFile } from '../../lib/save-file.ts';
import {
  type AuditEntryDto,
  type AuditLogFilters,
  EXPORT_MAX,
  readAuditEntries,
  verifyAuditLog,
} from './audit-log.queries.ts';
import type { AuditExportFormat } from './audit-log-export.ts';

/** "1 entry", "2,500 entries". */
export const entriesCount = (count: number) => `${count.toLocaleString('en')} ${count === 1 ? 'entry' : 'entries'}`;

/**
 * Exports the entries matching `filters` (the newest `EXPORT_MAX` at most) and saves them as the file `fileOf`
 * makes; the toast says how many, and when older ones were left out. Nothing changes, so nothing refreshes.
 */
export function useExportAuditLog(
  filters: AuditLogFilters,
  fileOf: (format: AuditExportFormat, entries: AuditEntryDto[]) => { name: string; blob: Blob },
) {
  return useMutation({
    mutationFn: async (format: AuditExportFormat) => ({ format, ...(await readAuditEntries(filters)) }),
    onSuccess: ({ format, entries, complete }) => {
      const file = fileOf(format, entries);
      saveFile(file.blob, file.name);
      toast.success(
        complete
          ? `Exported ${entriesCount(entries.length)}`
          : `Exported the newest ${entriesCount(EXPORT_MAX)}. Narrow the dates to export older ones.`,
      );
    },
  });
}

/** Reads the organization's whole log and checks its chain → the verdict (shown by the screen, not toasted). */
export function useVerifyAuditLog(orgId: string) {
  return useMutation({ mutationFn: () => verifyAuditLog(orgId) });
}
