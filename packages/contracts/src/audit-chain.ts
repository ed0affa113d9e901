/**
 * The audit log's hash chain (issue 32). Each organization's entries are numbered from 1 (`seq`) in the order they
 * were appended; each holds the hash of the one before (`prevHash`, `AUDIT_GENESIS` for the first) and its own
 * `hash`, the SHA-256 (hex) of `auditHashInput`. Changing, removing or reordering an entry breaks every hash after
 * it, and an organization's entries cannot be moved to another (its id is hashed). Whoever keeps a copy of the
 * latest hash can tell that nothing before it was rewritten.
 *
 * The orgs service computes the hashes as it appends (node:crypto); `verifyAuditChain` checks a chain anywhere
 * WebCrypto runs (the `formgate audit verify` command, the dashboard).
 */

/** The `prevHash` of an organization's first entry. */
export const AUDIT_GENESIS = '0'.repeat(64);
/** The version of `auditHashInput`: a later format gets another tag, so old entries keep verifying. */
const FORMAT = 'formgate-audit-v1';

/** What an entry's hash covers. */
export interface AuditChainFields {
  orgId: string;
  seq: number;
  prevHash: string;
  id: string;
  type: string;
  actor: { userId: string; email: string | null } | null;
  occurredAt: string;
  data: Record<string, string>;
}

/** The exact text hashed: a JSON array in a fixed order, `data` as key-sorted pairs. */
export function auditHashInput(e: AuditChainFields): string {
  const data = Object.entries(e.data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    FORMAT,
    e.orgId,
    e.seq,
    e.prevHash,
    e.id,
    e.type,
    e.actor?.userId ?? null,
    e.actor?.email ?? null,
    e.occurredAt,
    data,
  ]);
}

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** An entry's hash with WebCrypto (Node 20+, browsers). */
export async function auditEntryHash(e: AuditChainFields): Promise<string> {
  return hex(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(auditHashInput(e))));
}

export type AuditChainVerdict =
  | { ok: true; entries: number; head: string }
  | { ok: false; entries: number; seq: number; id: string | null; reason: string };

/**
 * What an earlier verification saw (its `entries` and `head`): a chain only ever grows, so it must still hold that
 * entry, with that hash. A chain alone cannot show that its newest entries were cut off, or that it was rebuilt
 * from scratch with every hash recomputed; a head kept outside Formgate can.
 */
export interface AuditChainAnchor {
  entries: number;
  head: string;
}

/**
 * Checks a chain read in order (`seq` ascending), page by page: `check` each page, then `result()`. Every entry must
 * follow the previous one (`seq` + 1), point at its hash, and hash to what it says. The first break is reported:
 * where the chain no longer holds, so that everything before it is known good. With an `anchor`, the chain must
 * also still hold the entry that ended it then, with the same hash.
 */
export function createAuditChainVerifier(orgId: string, anchor?: AuditChainAnchor) {
  let previous = { seq: 0, hash: AUDIT_GENESIS };
  let broken: Extract<AuditChainVerdict, { ok: false }> | undefined;
  let count = 0;
  return {
    async check(page: readonly (AuditChainFields & { hash: string })[]): Promise<boolean> {
      for (const e of page) {
        if (broken) return false;
        const fail = (reason: string) => {
          broken = { ok: false, entries: count, seq: previous.seq + 1, id: e.id, reason };
        };
        if (e.orgId !== orgId) fail(`entry ${e.id} belongs to another organization`);
        else if (e.seq !== previous.seq + 1)
          fail(
            e.seq > previous.seq + 1
              ? `entries ${previous.seq + 1}–${e.seq - 1} are missing`
              : `entry ${e.seq} appears again or out of order`,
          );
        else if (e.prevHash !== previous.hash) fail(`entry ${e.seq} does not point at entry ${previous.seq}'s hash`);
        else if ((await auditEntryHash(e)) !== e.hash) fail(`entry ${e.seq} was changed after it was written`);
        else if (anchor && e.seq === anchor.entries && e.hash !== anchor.head)
          fail(`entry ${e.seq} is not the one recorded earlier: the chain was rewritten up to it`);
        if (broken) return false;
        previous = { seq: e.seq, hash: e.hash };
        count++;
      }
      return true;
    },
    result(): AuditChainVerdict {
      if (!broken && anchor && count < anchor.entries)
        broken = {
          ok: false,
          entries: count,
          seq: count + 1,
          id: null,
          reason: `the chain ends at entry ${count}: entries ${count + 1}–${anchor.entries}, recorded earlier, are gone`,
        };
      return broken ?? { ok: true, entries: count, head: previous.hash };
    },
  };
}
