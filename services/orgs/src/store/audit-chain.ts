import { createHash } from 'node:crypto';
import { AUDIT_GENESIS, auditHashInput, type OrgScope } from '@formgate/contracts';
import type { AuditEntry, NewAuditEntry } from './records.ts';

/** The entry that follows `head` (the organization's last entry, none for its first) in its hash chain. */
export function chainAuditEntry(
  scope: OrgScope,
  entry: NewAuditEntry,
  head: Pick<AuditEntry, 'seq' | 'hash'> | undefined,
): AuditEntry {
  const seq = (head?.seq ?? 0) + 1;
  const prevHash = head?.hash ?? AUDIT_GENESIS;
  const hash = createHash('sha256')
    .update(auditHashInput({ ...entry, orgId: scope.orgId, seq, prevHash }))
    .digest('hex');
  return { ...entry, seq, prevHash, hash };
}
