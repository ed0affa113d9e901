import { readFileSync } from 'node:fs';
import {
  type AuditChainAnchor,
  type AuditChainFields,
  type AuditChainVerdict,
  createAuditChainVerifier,
} from '@formgate/contracts/audit-chain';
import { ExitWith } from './erasures.ts';
import { CliError, type createClient } from './http.ts';

type Call = ReturnType<typeof createClient>;
type ChainPage = { orgId: string; data: (Omit<AuditChainFields, 'orgId'> & { hash: string })[]; next: number | null };
type Verdict = AuditChainVerdict & { orgId: string; slug?: string };

const USAGE = 'Usage: formgate audit verify [--all] [--since <earlier verify output.json>]';
const PAGE = 1_000;

/**
 * The heads an earlier `audit verify` printed (its JSON output, saved to a file), by organization: each chain must
 * still hold them. Only intact verdicts are anchors.
 */
function readAnchors(file: string): Map<string, AuditChainAnchor> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliError(`--since ${file}: not the JSON output of an earlier audit verify (${(err as Error).message})`);
  }
  const organizations = (parsed as { organizations?: unknown } | null)?.organizations;
  if (!Array.isArray(organizations))
    throw new CliError(`--since ${file}: not the JSON output of an earlier audit verify (no "organizations")`);
  const anchors = new Map<string, AuditChainAnchor>();
  for (const v of organizations as Partial<Verdict & { head: string }>[])
    if (v.ok === true && typeof v.orgId === 'string' && typeof v.entries === 'number' && typeof v.head === 'string')
      anchors.set(v.orgId, { entries: v.entries, head: v.head });
  return anchors;
}

/** Reads one organization's chain from `path` page by page and verifies it as it goes (stops at the first break). */
async function verifyChain(
  call: Call,
  path: string,
  anchorOf: (orgId: string) => AuditChainAnchor | undefined,
): Promise<Verdict> {
  let orgId: string | undefined;
  let verifier: ReturnType<typeof createAuditChainVerifier> | undefined;
  let after = 0;
  for (;;) {
    const page = (await call(
      'GET',
      `${path}?${new URLSearchParams({ after: String(after), limit: String(PAGE) })}`,
    )) as ChainPage;
    orgId ??= page.orgId;
    verifier ??= createAuditChainVerifier(orgId, anchorOf(orgId));
    const intact = await verifier.check(page.data.map((e) => ({ ...e, orgId: page.orgId })));
    if (!intact || page.next === null) return { orgId, ...verifier.result() };
    after = page.next;
  }
}

/**
 * `audit verify`: reads the audit log's hash chain in order and checks every entry (`@formgate/contracts`
 * audit-chain), here, not on the server. With FORMGATE_API_KEY (a write key): the key's organization; with `--all`
 * and FORMGATE_OPERATOR_TOKEN: every organization. Prints each organization's verdict (its entry count and latest
 * hash, to keep and compare next time; or where the chain breaks and why); exits 1 when one is broken. `--since`
 * takes such an output, kept from before: each chain must still hold the head it printed then (`AuditChainAnchor`).
 */
export async function auditCommand(
  args: string[],
  o: { all: boolean; since?: string | undefined },
  clients: { keyed: () => Call; operator: () => Call },
) {
  if (args[0] !== 'verify' || args.length !== 1) throw new CliError(USAGE);
  const anchors = o.since ? readAnchors(o.since) : new Map<string, AuditChainAnchor>();
  const anchorOf = (orgId: string) => anchors.get(orgId);
  const verdicts: Verdict[] = [];
  if (o.all) {
    const call = clients.operator();
    const { data } = (await call('GET', '/api/ops/orgs?limit=1000')) as { data: { id: string; slug: string }[] };
    for (const org of data) {
      const verdict = await verifyChain(call, `/api/ops/orgs/${encodeURIComponent(org.id)}/audit-log/chain`, anchorOf);
      verdicts.push({ ...verdict, slug: org.slug });
    }
  } else verdicts.push(await verifyChain(clients.keyed(), '/api/v1/orgs/audit-log/chain', anchorOf));
  const broken = verdicts.filter((v) => !v.ok);
  const result = { ok: broken.length === 0, organizations: verdicts };
  return broken.length ? new ExitWith(1, result) : result;
}
