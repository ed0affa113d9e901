import { SITE_ORG_ID } from '@formgate/contracts';
import type { Clock } from '@formgate/kit';
import type { OrgEventRecorder } from './org-events/recorder.ts';
import type { OutboxAdapter } from './org-events/schema.ts';

/** The instance's own organization: it holds the forms of the public site (example, waitlist, feedback). */
export const SITE_ORG = { id: SITE_ORG_ID, name: 'Formgate site', slug: 'formgate-site' } as const;
/** The member row the first verified user takes: a fixed id, so of two concurrent claims one insert wins. */
const FIRST_OWNER_MEMBER_ID = 'formgate-site-first-owner';

interface MemberRow {
  id: string;
  userId: string;
  role: string;
}

/**
 * The site organization in better-auth's database (ADR 23). Inserts use fixed ids, so several gateways booting at
 * once, or two users verifying at once, insert each row once (the duplicate insert fails and is ignored).
 */
export function createSiteOrganization(deps: { adapter: () => OutboxAdapter; record: OrgEventRecorder; clock: Clock }) {
  const findOrg = () =>
    deps.adapter().findOne<{ id: string }>({ model: 'organization', where: [{ field: 'id', value: SITE_ORG.id }] });
  const members = (userId?: string) =>
    deps.adapter().findMany<MemberRow>({
      model: 'member',
      where: [{ field: 'organizationId', value: SITE_ORG.id }, ...(userId ? [{ field: 'userId', value: userId }] : [])],
    });
  const insertOnce = async (model: string, data: Record<string, unknown>) => {
    try {
      await deps.adapter().create({ model, data, forceAllowId: true });
      return true;
    } catch (err) {
      // Another gateway inserted it first (the duplicate-key error differs per backend): fine if the row is there.
      const row = await deps.adapter().findOne({ model, where: [{ field: 'id', value: data.id as string }] });
      if (row) return false;
      throw err;
    }
  };
  const addOwner = async (user: { id: string; email: string | null }, memberId: string) => {
    const created = await insertOnce('member', {
      id: memberId,
      organizationId: SITE_ORG.id,
      userId: user.id,
      role: 'owner',
      createdAt: deps.clock.now(),
    });
    if (created)
      await deps.record('member.added', { orgId: SITE_ORG.id, actor: null, memberId, userId: user.id, role: 'owner' });
    return created;
  };

  return {
    id: SITE_ORG.id,
    /** Creates the organization if it is missing; idempotent, run at every boot. Resolves to its id. */
    async ensure(): Promise<string> {
      if (await findOrg()) return SITE_ORG.id;
      const created = await insertOnce('organization', {
        ...SITE_ORG,
        createdAt: deps.clock.now(),
        metadata: JSON.stringify({ site: true }),
      });
      if (created)
        await deps.record('organization.created', {
          orgId: SITE_ORG.id,
          name: SITE_ORG.name,
          slug: SITE_ORG.slug,
          actor: null,
        });
      return SITE_ORG.id;
    },
    /** A user verified their email: the first one, while the organization has no member, becomes its owner. */
    async claimFirstOwner(user: { id: string; email: string | null }): Promise<boolean> {
      if (!(await findOrg())) return false;
      if ((await members()).length > 0) return false;
      return addOwner(user, FIRST_OWNER_MEMBER_ID);
    },
    /** The operator makes a user an owner (`formgate site owner <email>`): added, or promoted if already a member. */
    async setOwner(email: string): Promise<'added' | 'promoted' | 'unchanged' | 'no-such-user'> {
      const user = await deps.adapter().findOne<{ id: string; email: string }>({
        model: 'user',
        where: [{ field: 'email', value: email.trim().toLowerCase() }],
      });
      if (!user) return 'no-such-user';
      await this.ensure();
      const [existing] = await members(user.id);
      if (!existing) {
        await addOwner(user, `formgate-site-owner-${user.id}`);
        return 'added';
      }
      if (existing.role.split(',').includes('owner')) return 'unchanged';
      await deps
        .adapter()
        .update({ model: 'member', where: [{ field: 'id', value: existing.id }], update: { role: 'owner' } });
      await deps.record('member.role-updated', {
        orgId: SITE_ORG.id,
        actor: null,
        memberId: existing.id,
        userId: user.id,
        role: 'owner',
        previousRole: existing.role,
      });
      return 'promoted';
    },
  };
}

export type SiteOrganization = ReturnType<typeof createSiteOrganization>;
