import {
  type AuditChainPageDto,
  type AuditChainVerdict,
  type AuditEntryDto,
  createAuditChainVerifier,
  type ListEnvelope,
} from '@formgate/contracts';
import { infiniteQueryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';
import { AUDIT_TYPE_CHOICES } from './audit-entries.ts';

/* The organization's audit log (issue 32): its pages, newest first, and its hash chain, in order. */

export type { AuditChainVerdict, AuditEntryDto };

/** The log's filters, as in the screen's address. */
export interface AuditLogFilters {
  /** One type, or a group's comma-separated types (`AUDIT_TYPE_CHOICES`). */
  type?: string;
  /** The address of who did it (exact, any letter case). */
  actor?: string;
  /** `YYYY-MM-DD`, a local day, inclusive. */
  from?: string;
  /** `YYYY-MM-DD`, a local day, inclusive. */
  to?: string;
}

const FILTER_KEYS = ['type', 'actor', 'from', 'to'] as const;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The filters of a search string; anything else is ignored, an unknown type or a malformed day dropped. */
export function filtersOf(search: URLSearchParams): AuditLogFilters {
  const filters: AuditLogFilters = {};
  const type = search.get('type');
  if (type && AUDIT_TYPE_CHOICES.has(type)) filters.type = type;
  const actor = search.get('actor')?.trim();
  if (actor) filters.actor = actor;
  for (const key of ['from', 'to'] as const) {
    const v = search.get(key);
    if (v && DAY.test(v)) filters[key] = v;
  }
  return filters;
}

/** The query string of some filters (without `?`), in a stable order. */
export function filtersToQuery(filters: AuditLogFilters): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const v = filters[key];
    if (v) params.set(key, v);
  }
  return params.toString();
}

export const hasFilters = (filters: AuditLogFilters) => FILTER_KEYS.some((k) => filters[k]);

/** Local midnight of a `YYYY-MM-DD` day, `days` later, as an ISO time. */
function localMidnight(day: string, days = 0): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d + days).toISOString();
}

/** The API's query for `filters`: the days become the local midnights around them (`to` is exclusive there). */
export function apiQueryOf(filters: AuditLogFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.type) params.set('type', filters.type);
  if (filters.actor) params.set('actor', filters.actor);
  if (filters.from) params.set('from', localMidnight(filters.from));
  if (filters.to) params.set('to', localMidnight(filters.to, 1));
  return params;
}

export const auditLogKeys = {
  all: ['audit-log'] as const,
  lists: () => [...auditLogKeys.all, 'list'] as const,
  list: (filters: AuditLogFilters) => [...auditLogKeys.lists(), filters] as const,
};

const LIST_PATH = '/api/v1/orgs/audit-log';
export const PAGE_SIZE = 50;
/** The most entries an export holds. */
export const EXPORT_MAX = 10_000;
const EXPORT_PAGE_SIZE = 100;
const CHAIN_PAGE_SIZE = 1_000;

const listPage = (filters: AuditLogFilters, limit: number, cursor: string | null) => {
  const params = apiQueryOf(filters);
  params.set('limit', String(limit));
  if (cursor) params.set('cursor', cursor);
  return apiFetch<ListEnvelope<AuditEntryDto>>(`${LIST_PATH}?${params}`);
};

/** The entries matching `filters`, newest first, `PAGE_SIZE` at a time (`nextCursor` → "Load more"). */
export const auditLogQuery = (filters: AuditLogFilters) =>
  infiniteQueryOptions({
    queryKey: auditLogKeys.list(filters),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => listPage(filters, PAGE_SIZE, pageParam),
    getNextPageParam: (last) => last.nextCursor,
  });

/** Every entry matching `filters`, newest first, up to `max`; `complete` is false when more were left out. */
export async function readAuditEntries(
  filters: AuditLogFilters,
  max = EXPORT_MAX,
): Promise<{ entries: AuditEntryDto[]; complete: boolean }> {
  const entries: AuditEntryDto[] = [];
  let cursor: string | null = null;
  do {
    const page: ListEnvelope<AuditEntryDto> = await listPage(
      filters,
      Math.min(EXPORT_PAGE_SIZE, max - entries.length),
      cursor,
    );
    entries.push(...page.data);
    cursor = page.data.length > 0 ? page.nextCursor : null;
  } while (cursor && entries.length < max);
  return { entries, complete: cursor === null };
}

/**
 * Reads the organization's whole chain, page by page in order, and checks it with the contracts' verifier: every
 * entry must follow the one before, point at its hash and hash to what it says. Reading stops at the first break.
 */
export async function verifyAuditLog(orgId: string): Promise<AuditChainVerdict> {
  const verifier = createAuditChainVerifier(orgId);
  let after: number | null = 0;
  while (after !== null) {
    const page: AuditChainPageDto = await apiFetch(`${LIST_PATH}/chain?after=${after}&limit=${CHAIN_PAGE_SIZE}`);
    if (!(await verifier.check(page.data.map((e) => ({ ...e, orgId: page.orgId }))))) break;
    after = page.data.length > 0 ? page.next : null;
  }
  return verifier.result();
}
