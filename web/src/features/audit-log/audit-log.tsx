import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { Panel } from '../../components/panel.tsx';
import { Button, Notice } from '../../components/ui.tsx';
import { describeError } from '../../lib/api.ts';
import { formsListQuery } from '../forms/forms.queries.ts';
import { useOrganization } from '../organization/organization-layout.tsx';
import { useCan } from '../organization/use-can.ts';
import type { FullOrganization } from '../session/session.queries.ts';
import { actorOf, describeAuditEntry } from './audit-entries.ts';
import { useExportAuditLog } from './audit-log.mutations.ts';
import {
  type AuditEntryDto,
  type AuditLogFilters,
  auditLogQuery,
  filtersOf,
  filtersToQuery,
  hasFilters,
} from './audit-log.queries.ts';
import { auditLogFile } from './audit-log-export.ts';
import { AuditLogFilterForm } from './audit-log-filters.tsx';
import { AuditLogTable } from './audit-log-table.tsx';
import { AuditLogVerifyPanel } from './audit-log-verify.tsx';

/**
 * `/dashboard/organization/audit-log` (issue 32): what was done in the organization, newest first, filtered by
 * type, person and days (kept in the address), exported as CSV or JSON, and its chain verified. Owners and admins
 * only (`organization: ['update']`); members are told so. The server checks again.
 */
export function AuditLogScreen() {
  const organization = useOrganization();
  const { can } = useCan();
  if (!can({ organization: ['update'] }))
    return (
      <Panel title="Audit log">
        <Notice>Only owners and admins of the organization can read its audit log.</Notice>
      </Panel>
    );
  return (
    <div className="flex flex-col gap-6">
      <AuditLogPanel organization={organization} />
      <AuditLogVerifyPanel key={organization.id} orgId={organization.id} />
    </div>
  );
}

/** Who and what of an entry as the screen and its CSV word them, with the members' and forms' names known. */
function useEntryWords(organization: FullOrganization) {
  const forms = useQuery(formsListQuery());
  return useMemo(() => {
    const members = new Map(organization.members.map((m) => [m.userId, m.user.email]));
    const formNames = new Map((forms.data ?? []).map((f) => [f.id, f.name]));
    const names = { member: (id: string) => members.get(id), form: (id: string) => formNames.get(id) };
    return {
      who: (e: AuditEntryDto) => actorOf(e, names),
      what: (e: AuditEntryDto) => describeAuditEntry(e, names),
    };
  }, [organization.members, forms.data]);
}

function AuditLogPanel({ organization }: { organization: FullOrganization }) {
  const [search, setSearch] = useSearchParams();
  const filters = useMemo(() => filtersOf(search), [search]);
  // A new filter keeps the list on screen until its first page arrives.
  const list = useInfiniteQuery({ ...auditLogQuery(filters), placeholderData: keepPreviousData });
  const entries = useMemo(() => list.data?.pages.flatMap((p) => p.data) ?? [], [list.data]);
  const words = useEntryWords(organization);
  const setFilters = (next: AuditLogFilters) => setSearch(new URLSearchParams(filtersToQuery(next)));
  return (
    <Panel
      title="Audit log"
      description="What was done in this organization and by whom, newest first: changes to the organization, its members, invitations, teams and API keys, sign-ins, exports and erasures. Nobody can edit or delete an entry, and “Verify the log” below shows that none was."
    >
      <AuditLogFilterForm key={filtersToQuery(filters)} filters={filters} onChange={setFilters} />
      <ExportButtons
        filters={filters}
        words={words}
        organizationSlug={organization.slug}
        disabled={entries.length === 0}
      />
      {list.isError ? <Notice tone="error">{describeError(list.error)}</Notice> : null}
      {list.isPending ? (
        <p role="status">Loading the audit log…</p>
      ) : list.isError ? null : entries.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {hasFilters(filters) ? 'No entries match these filters.' : 'No entries yet.'}
        </p>
      ) : (
        <AuditLogTable
          entries={entries}
          who={words.who}
          what={words.what}
          hasMore={list.hasNextPage}
          loadingMore={list.isFetchingNextPage}
          onLoadMore={() => list.fetchNextPage()}
        />
      )}
    </Panel>
  );
}

/** "Export CSV" and "Export JSON": every entry matching the filters, not only those loaded. */
function ExportButtons(props: {
  filters: AuditLogFilters;
  words: ReturnType<typeof useEntryWords>;
  organizationSlug: string;
  disabled: boolean;
}) {
  const run = useExportAuditLog(props.filters, (format, entries) =>
    auditLogFile(format, entries, props.words, props.organizationSlug),
  );
  const label = (format: 'csv' | 'json') =>
    run.isPending && run.variables === format ? 'Exporting…' : `Export ${format.toUpperCase()}`;
  return (
    <div className="flex flex-wrap gap-2">
      {(['csv', 'json'] as const).map((format) => (
        <Button
          key={format}
          variant="secondary"
          disabled={props.disabled || run.isPending}
          onClick={() => run.mutate(format)}
        >
          {label(format)}
        </Button>
      ))}
    </div>
  );
}
