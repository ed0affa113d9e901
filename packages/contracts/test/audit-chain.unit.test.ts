import { describe, expect, it } from 'vitest';
import { AUDIT_GENESIS, type AuditChainFields, auditEntryHash, createAuditChainVerifier } from '../src/audit-chain.ts';

type Entry = AuditChainFields & { hash: string };

/** A well-formed chain of `n` entries for `orgId`, each hashed from the one before (as an appender writes it). */
async function chainOf(orgId: string, n: number, tag = 'a'): Promise<Entry[]> {
  const out: Entry[] = [];
  let prevHash = AUDIT_GENESIS;
  for (let seq = 1; seq <= n; seq++) {
    const fields: AuditChainFields = {
      orgId,
      seq,
      prevHash,
      id: `${tag}-${seq}`,
      type: 'member.added',
      actor: null,
      occurredAt: `2026-01-0${seq}T00:00:00.000Z`,
      data: { role: 'member' },
    };
    const hash = await auditEntryHash(fields);
    out.push({ ...fields, hash });
    prevHash = hash;
  }
  return out;
}

const verify = async (entries: Entry[], anchor?: { entries: number; head: string }) => {
  const verifier = createAuditChainVerifier('org1', anchor);
  await verifier.check(entries);
  return verifier.result();
};

describe('audit chain verification with a head kept from before', () => {
  it('passes a chain that grew since, from the same entries', async () => {
    const chain = await chainOf('org1', 5);
    const then = await verify(chain.slice(0, 3));
    expect(then).toMatchObject({ ok: true, entries: 3 });
    const anchor = then as { entries: number; head: string };
    expect(await verify(chain, anchor)).toEqual({ ok: true, entries: 5, head: chain[4]?.hash });
  });

  it('fails a chain cut short before the kept head, which alone still verifies', async () => {
    const chain = await chainOf('org1', 5);
    const anchor = (await verify(chain)) as { entries: number; head: string };
    const cut = chain.slice(0, 3);
    expect((await verify(cut)).ok).toBe(true);
    expect(await verify(cut, anchor)).toEqual({
      ok: false,
      entries: 3,
      seq: 4,
      id: null,
      reason: 'the chain ends at entry 3: entries 4–5, recorded earlier, are gone',
    });
  });

  it('fails a chain rebuilt with every hash recomputed, which alone still verifies', async () => {
    const anchor = (await verify(await chainOf('org1', 4))) as { entries: number; head: string };
    const rebuilt = await chainOf('org1', 6, 'forged');
    expect((await verify(rebuilt)).ok).toBe(true);
    expect(await verify(rebuilt, anchor)).toMatchObject({
      ok: false,
      seq: 4,
      entries: 3,
      reason: 'entry 4 is not the one recorded earlier: the chain was rewritten up to it',
    });
  });
});
