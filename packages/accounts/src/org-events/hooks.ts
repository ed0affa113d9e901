import type { OrgEventRecorder } from './recorder.ts';

interface UserLike {
  id: string;
  email?: string | null;
}
const actor = (u: UserLike | undefined) => (u ? { userId: u.id, email: u.email ?? null } : null);
type Named = { id: string; name: string; slug?: string };
const org = (o: Named) => ({ orgId: o.id, name: o.name, slug: o.slug ?? '' });
type MemberLike = { id: string; userId: string; role: string };
const member = (m: MemberLike) => ({ memberId: m.id, userId: m.userId, role: m.role });
type InvitationLike = { id: string; email: string; role?: string | null; expiresAt: Date };
const invitation = (i: InvitationLike) => ({ invitationId: i.id, email: i.email, role: i.role ?? 'member' });

/** The organization plugin's hooks, each recording one lifecycle event (in the same database, see the outbox). */
export function orgEventHooks(record: OrgEventRecorder) {
  return {
    afterCreateOrganization: async ({
      organization: o,
      member: m,
      user,
    }: {
      organization: Named;
      member: MemberLike;
      user: UserLike;
    }) => {
      await record('organization.created', { ...org(o), actor: actor(user) });
      await record('member.added', { orgId: o.id, actor: actor(user), ...member(m) });
    },
    afterUpdateOrganization: async ({
      organization: o,
      user,
    }: {
      organization: (Named & { requireTwoFactor?: boolean | null; requireSso?: boolean | null }) | null;
      user: UserLike;
    }) => {
      if (!o) return;
      // The sign-in requirements as they stand after the change (absent on rows from before the setting existed).
      const flag = (value: boolean | null | undefined) => (value ? 'true' : 'false');
      await record('organization.updated', {
        ...org(o),
        actor: actor(user),
        ...(typeof o.requireTwoFactor === 'boolean' ? { requireTwoFactor: flag(o.requireTwoFactor) } : {}),
        ...(typeof o.requireSso === 'boolean' ? { requireSso: flag(o.requireSso) } : {}),
      });
    },
    // Before and after: a crash between better-auth's deletion and the after-hook must not lose the event that
    // makes every service purge the organization's data.
    beforeDeleteOrganization: async ({ organization: o, user }: { organization: Named; user: UserLike }) =>
      record.deletionIntent({ ...org(o), actor: actor(user) }),
    afterDeleteOrganization: async ({ organization: o, user }: { organization: Named; user: UserLike }) =>
      record('organization.deleted', { ...org(o), actor: actor(user) }),
    afterAddMember: async ({
      member: m,
      user,
      organization: o,
    }: {
      member: MemberLike;
      user: UserLike;
      organization: Named;
    }) => record('member.added', { orgId: o.id, actor: actor(user), ...member(m) }),
    afterRemoveMember: async ({
      member: m,
      user,
      organization: o,
    }: {
      member: MemberLike;
      user: UserLike;
      organization: Named;
    }) => record('member.removed', { orgId: o.id, actor: actor(user), ...member(m) }),
    afterUpdateMemberRole: async (d: {
      member: MemberLike;
      previousRole: string;
      user: UserLike;
      organization: Named;
    }) =>
      record('member.role-updated', {
        orgId: d.organization.id,
        actor: actor(d.user),
        ...member(d.member),
        previousRole: d.previousRole,
      }),
    afterCreateInvitation: async (d: { invitation: InvitationLike; inviter: UserLike; organization: Named }) =>
      record('invitation.created', {
        orgId: d.organization.id,
        actor: actor(d.inviter),
        ...invitation(d.invitation),
        expiresAt: new Date(d.invitation.expiresAt).toISOString(),
      }),
    afterAcceptInvitation: async (d: {
      invitation: InvitationLike;
      member: MemberLike;
      user: UserLike;
      organization: Named;
    }) => {
      await record('invitation.accepted', {
        orgId: d.organization.id,
        actor: actor(d.user),
        ...invitation(d.invitation),
      });
      await record('member.added', { orgId: d.organization.id, actor: actor(d.user), ...member(d.member) });
    },
    afterCancelInvitation: async (d: { invitation: InvitationLike; cancelledBy: UserLike; organization: Named }) =>
      record('invitation.canceled', {
        orgId: d.organization.id,
        actor: actor(d.cancelledBy),
        ...invitation(d.invitation),
      }),
    afterCreateTeam: async (d: { team: Named; user?: UserLike; organization: Named }) =>
      record('team.created', { orgId: d.organization.id, actor: actor(d.user), teamId: d.team.id, name: d.team.name }),
    afterUpdateTeam: async (d: { team: Named | null; user: UserLike; organization: Named }) => {
      if (d.team)
        await record('team.updated', {
          orgId: d.organization.id,
          actor: actor(d.user),
          teamId: d.team.id,
          name: d.team.name,
        });
    },
    afterDeleteTeam: async (d: { team: Named; user?: UserLike; organization: Named }) =>
      record('team.deleted', { orgId: d.organization.id, actor: actor(d.user), teamId: d.team.id, name: d.team.name }),
  };
}
