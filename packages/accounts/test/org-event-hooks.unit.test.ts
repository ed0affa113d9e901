import { createLogger } from '@formgate/kit';
import { describe, expect, it } from 'vitest';
import { authOptions } from '../src/create-auth.ts';
import type { OrgEventRecorder } from '../src/org-events/recorder.ts';

type Hook = (data: unknown) => Promise<void>;

describe('organization deletion hooks as better-auth gets them', () => {
  it('record an intent before the deletion, then revoke the keys and confirm it after', async () => {
    const calls: string[] = [];
    const record = Object.assign(
      async (type: string, data: { orgId: string }) => void calls.push(`${type}:${data.orgId}`),
      {
        deletionIntent: async (data: { orgId: string }) => void calls.push(`intent:${data.orgId}`),
      },
    ) as unknown as OrgEventRecorder;
    const options = authOptions({
      database: undefined,
      publicUrl: 'http://127.0.0.1:3000',
      secret: 'x'.repeat(32),
      trustedOrigins: [],
      mailer: { send: async () => ({ messageId: '' }), close: async () => {} },
      logger: createLogger({ level: 'silent', name: 'hooks-test' }),
      signInPerMinute: 10,
      invitationTtlSeconds: 60,
      recordOrgEvent: record,
      revokeApiKeys: async (orgId) => void calls.push(`revoke:${orgId}`),
      adapterGuard: { timeoutMs: 1_000 },
    });
    const plugin = options.plugins.find((p) => p.id === 'organization') as unknown as {
      options: { organizationHooks: Record<'beforeDeleteOrganization' | 'afterDeleteOrganization', Hook> };
    };
    const hooks = plugin.options.organizationHooks;
    const data = { organization: { id: 'org-1', name: 'Acme', slug: 'acme' }, user: { id: 'u1', email: 'a@b.c' } };

    await hooks.beforeDeleteOrganization(data);
    expect(calls).toEqual(['intent:org-1']);
    await hooks.afterDeleteOrganization(data);
    expect(calls).toEqual(['intent:org-1', 'revoke:org-1', 'organization.deleted:org-1']);
  });
});
