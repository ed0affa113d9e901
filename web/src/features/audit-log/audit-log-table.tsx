import { formatDateTime } from '../../components/panel.tsx';
import { Button } from '../../components/ui.tsx';
import type { AuditEntryDto } from './audit-log.queries.ts';

const HEAD = 'px-3 py-2 text-left font-medium text-zinc-600 dark:text-zinc-400';
const CELL = 'px-3 py-2 align-top';

/**
 * The listed entries, newest first: when (local time, the exact time as its title), who, what, and the entry's
 * number in the chain. Every value is text.
 */
export function AuditLogTable(props: {
  entries: AuditEntryDto[];
  who: (e: AuditEntryDto) => string;
  what: (e: AuditEntryDto) => string;
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
}) {
  return (
    <div className="flex flex-col gap-3">
      <div className="overflow-x-auto">
        <table className="w-full text-sm">
          <caption className="sr-only">Audit log entries</caption>
          <thead className="border-b border-zinc-200 dark:border-zinc-800">
            <tr>
              <th scope="col" className={HEAD}>
                Time
              </th>
              <th scope="col" className={HEAD}>
                Who
              </th>
              <th scope="col" className={HEAD}>
                What
              </th>
              <th scope="col" className={`${HEAD} text-right`}>
                Entry
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {props.entries.map((e) => (
              <tr key={e.id}>
                <td className={`${CELL} whitespace-nowrap`}>
                  <time dateTime={e.occurredAt} title={e.occurredAt}>
                    {formatDateTime(e.occurredAt)}
                  </time>
                </td>
                <td className={`${CELL} break-all`}>{props.who(e)}</td>
                <td className={`${CELL} break-words`}>{props.what(e)}</td>
                <td className={`${CELL} text-right font-mono text-xs whitespace-nowrap`}>#{e.seq}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {props.hasMore ? (
        <div>
          <Button variant="secondary" onClick={props.onLoadMore} disabled={props.loadingMore}>
            {props.loadingMore ? 'Loading…' : 'Load more'}
          </Button>
        </div>
      ) : null}
    </div>
  );
}
