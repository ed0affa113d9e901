import { AUDIT_GENESIS, type AuditEntryDto, auditEntryHash, authorize } from '@formgate/contracts';
import type { ApiHandler, RecordedRequest } from './api-server.ts';

export const ORG_ID = 'org1';

/** An entry to append: what the orgs service receives (its place in the chain and its hashes are computed). */
export type EntrySpec = Pick<AuditEntryDto, 'type' | 'actor' | 'occurredAt' | 'data'>;

/** `specs`, oldest first, as the orgs service chains them: numbered from 1, each hash over the entry before it. */
export async function chainOf(specs: EntrySpec[], orgId = ORG_ID): Promise<AuditEntryDto[]> {
  const entries: AuditEntryDto[] = [];
  let prevHash = AUDIT_GENESIS;
  for (const [i, spec] of specs.entries()) {
    const fields = { id: `ev${i + 1}`, ...spec, seq: i + 1, prevHash };
    const hash = await auditEntryHash({ ...fields, orgId });
    entries.push({ ...fields, hash });
    prevHash = hash;
  }
  return entries;
}

/** What the stand-in holds: the active member's role and the organization's chain, oldest first. */
export interface AuditWorld {
  role: string;
  entries: AuditEntryDto[];
}

const refused = (status: number, code: string, message: string) => ({
  status,
  body: { error: { code, message, requestId: 'req-1' } },
});

/** The newest first, as the API pages them (time, then the chain's order). */
const newestFirst = (a: AuditEntryDto, b: AuditEntryDto) =>
  a.occurredAt === b.occurredAt ? b.seq - a.seq : a.occurredAt < b.occurredAt ? 1 : -1;

function matches(e: AuditEntryDto, query: URLSearchParams): boolean {
  const types = query.get('type')?.split(',');
  const actor = query.get('actor')?.toLowerCase();
  const from = query.get('from');
  const to = query.get('to');
  return (
    (!types || types.includes(e.type)) &&
    (!actor || e.actor?.email?.toLowerCase() === actor) &&
    (!from || e.occurredAt >= from) &&
    (!to || e.occurredAt < to)
  );
}

/** `GET /api/v1/orgs/audit-log`: the matching entries, newest first; the cursor is the offset of the next page. */
function listPage(world: AuditWorld, query: URLSearchParams) {
  const limit = Number(query.get('limit') ?? 25);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return refused(400, 'VALIDATION_FAILED', 'limit: Too big: expected number to be <=100');
  const start = Number(query.get('cursor') ?? 0);
  const all = world.entries.filter((e) => matches(e, query)).sort(newestFirst);
  const data = all.slice(start, start + limit);
  return { body: { data, nextCursor: start + limit < all.length ? String(start + limit) : null } };
}

/** `GET /api/v1/orgs/audit-log/chain`: the chain in order after `after`, `limit` at a time. */
function chainPage(world: AuditWorld, query: URLSearchParams) {
  const after = Number(query.get('after') ?? 0);
  const limit = Number(query.get('limit') ?? 500);
  const data = world.entries.filter((e) => e.seq > after).slice(0, limit);
  return { body: { orgId: ORG_ID, data, next: data.length === limit ? (data.at(-1)?.seq ?? null) : null } };
}

/**
 * A stand-in for the orgs service's audit log over `world`, for `startApi`: the list (type, actor, from, to, cursor
 * and limit as the API reads them) and the chain, both refused to a member as the service refuses them.
 */
export function auditLogApi(world: AuditWorld): ApiHandler {
  return (req: RecordedRequest) => {
    if (req.method !== 'GET' || !req.path.startsWith('/api/v1/orgs/audit-log')) return undefined;
    const permission = authorize([world.role], { organization: ['update'] });
    if (!permission.success) return refused(403, 'FORBIDDEN', permission.error ?? 'Not authorized');
    if (req.path === '/api/v1/orgs/audit-log') return listPage(world, req.query);
    if (req.path === '/api/v1/orgs/audit-log/chain') return chainPage(world, req.query);
    return undefined;
  };
}
