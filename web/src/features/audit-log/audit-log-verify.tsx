import { CopyButton } from '../../components/copy-button.tsx';
import { Panel } from '../../components/panel.tsx';
import { Button, Notice } from '../../components/ui.tsx';
import { entriesCount, useVerifyAuditLog } from './audit-log.mutations.ts';
import type { AuditChainVerdict } from './audit-log.queries.ts';

/**
 * "Verify the log": reads the organization's whole log in order and checks that each entry is sealed to the one
 * before it, then says it is intact (with its last hash, to keep) or where it was altered. Give it a `key` of the
 * organization, so a verdict is never shown for another one.
 */
export function AuditLogVerifyPanel({ orgId }: { orgId: string }) {
  const verify = useVerifyAuditLog(orgId);
  return (
    <Panel
      title="Verify the log"
      description="Every entry is sealed with a hash of its content and of the entry before it, so changing, removing or reordering any entry breaks the seal of every entry after it. Keep the last hash somewhere safe: a later check that still reaches it shows that nothing before it was rewritten."
    >
      <div>
        <Button variant="secondary" onClick={() => verify.mutate()} disabled={verify.isPending}>
          {verify.isPending ? 'Checking the log…' : 'Verify the log'}
        </Button>
      </div>
      {verify.data && !verify.isPending ? <Verdict verdict={verify.data} /> : null}
    </Panel>
  );
}

function Verdict({ verdict }: { verdict: AuditChainVerdict }) {
  if (!verdict.ok)
    return (
      <Notice tone="error">
        The log was altered at entry #{verdict.seq}: {verdict.reason}.
      </Notice>
    );
  if (verdict.entries === 0) return <Notice>The log has no entries yet.</Notice>;
  return (
    <Notice>
      <span className="flex flex-wrap items-center gap-2">
        <span>
          The log is intact: {entriesCount(verdict.entries)}, last hash{' '}
          <code className="font-mono" title={verdict.head}>
            {verdict.head.slice(0, 12)}…
          </code>
        </span>
        <CopyButton text={verdict.head} label="Copy the last hash" />
      </span>
    </Notice>
  );
}
