import {
  type AuditChainFields,
  type AuditChainVerdict,
  createAuditChainVerifier,
} from '@formgate/contracts/audit-chain';
import { ExitWith } from './erasures.ts';
import { CliError, type createClient } from './http.ts';

type Call = ReturnType<typeof createClient>;
type ChainPage = { orgId: string; data: (Omit<AuditChainFields, 'orgId'> & { hash: string })[]; next: number | null };
type Verdict = AuditChainVerdict & { orgId: string; slug?: string };

const USAGE = 'Usage: formgate audit verify [--all]';
const PAGE = 1_000;

/** Reads one organization's chain from `path` page by page and verifies it as it goes (stops at the first break). */
async function verifyChain(call: Call, path: string): Promise<Verdict> {
  let orgId: string | undefined;
  let verifier: ReturnType<typeof createAuditChainVerifier> | undefined;
  let after = 0;
  for (;;) {
    const page = (await call(
      'GET',
      `${path}?${new URLSearchParams({ after: String(after), limit: String(PAGE) })}`,
    )) as ChainPage;
    orgId ??= page.orgId;
    verifier ??= createAuditChainVerifier(orgId);
    const intact = await verifier.check(page.data.map((e) => ({ ...e, orgId: page.orgId })));
    if (!intact || page.next === null) return { orgId, ...verifier.result() };
    after = page.next;
  }
}

/**
 * `audit verify`: reads the audit log's hash chain in order and checks every entry (`@formgate/contracts`
 * audit-chain), here, not on the server. With FORMGATE_API_KEY (a write key): the key's organization; with `--all`
 * and FORMGATE_OPERATOR_TOKEN: every organization. Prints each organization's verdict (its entry count and latest
 * hash, to keep and compare next time; or where the chain breaks and why); exits 1 when one is broken.
 */
export async function auditCommand(
  args: string[],
  o: { all: boolean },
  clients: { keyed: () => Call; operator: () => Call },
) {
  if (args[0] !== 'verify' || args.length !== 1) throw new CliError(USAGE);
  const verdicts: Verdict[] = [];
  if (o.all) {
    const call = clients.operator();
    const { data } = (await call('GET', '/api/ops/orgs?limit=1000')) as { data: { id: string; slug: string }[] };
    for (const org of data) {
      const verdict = await verifyChain(call, `/api/ops/orgs/${encodeURIComponent(org.id)}/audit-log/chain`);
      verdicts.push({ ...verdict, slug: org.slug });
    }
  } else verdicts.push(await verifyChain(clients.keyed(), '/api/v1/orgs/audit-log/chain'));
  const broken = verdicts.filter((v) => !v.ok);
  const result = { ok: broken.length === 0, organizations: verdicts };
  return broken.length ? new ExitWith(1, result) : result;
}
