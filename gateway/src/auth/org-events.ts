import type { EventBus } from '@formgate/bus';
import { encodeEvent, type OrganizationEvent, Topics } from '@formgate/contracts';
import type { Clock, Ids, Logger } from '@formgate/kit';
import type { BetterAuthPlugin } from 'better-auth';

/** An event without its envelope; the recorder adds id and time. */
type Body<T extends OrganizationEvent['type']> = Extract<OrganizationEvent, { type: T }>['data'];
export type OrgEventRecorder = <T extends OrganizationEvent['type']>(type: T, data: Body<T>) => Promise<void>;

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
    afterUpdateOrganization: async ({ organization: o, user }: { organization: Named | null; user: UserLike }) => {
      if (o) await record('organization.updated', { ...org(o), actor: actor(user) });
    },
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

const MODEL = 'orgEventOutbox';

/** Declares the outbox table in better-auth's own database, so migrations create it on SQLite and Mongo alike. */
export function orgEventOutboxPlugin() {
  return {
    id: 'formgate-org-event-outbox',
    schema: {
      [MODEL]: {
        fields: {
          /** uuid v7: time-ordered, so the relay publishes in the order the changes happened. */
          eventId: { type: 'string', required: true, index: true },
          orgId: { type: 'string', required: true },
          payload: { type: 'string', required: true },
        },
      },
    },
  } satisfies BetterAuthPlugin;
}

/** The part of better-auth's database adapter the outbox uses. */
export interface OutboxAdapter {
  create(input: { model: string; data: Record<string, unknown> }): Promise<unknown>;
  findMany<T>(input: {
    model: string;
    where?: { field: string; value: string }[];
    limit?: number;
    sortBy?: { field: string; direction: 'asc' | 'desc' };
  }): Promise<T[]>;
  deleteMany(input: {
    model: string;
    where: { field: string; operator?: 'in'; value: string | string[] }[];
  }): Promise<number>;
}

interface OutboxRow {
  id: string;
  eventId: string;
  orgId: string;
  payload: string;
}

/**
 * The organization event outbox: hooks write each event to better-auth's database right after the change it
 * describes; a relay publishes pending rows to `orgs.organization` (keyed by orgId, in order) and deletes them
 * once the log acknowledged. Several gateways may relay at once: consumers deduplicate on the event id.
 */
export function createOrgEventOutbox(deps: { clock: Clock; ids: Ids; logger: Logger; pollMs?: number }) {
  let adapter: OutboxAdapter | undefined;
  let bus: EventBus | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const relayOnce = async (): Promise<void> => {
    if (!adapter || !bus) return;
    for (;;) {
      const rows = await adapter.findMany<OutboxRow>({
        model: MODEL,
        limit: 200,
        sortBy: { field: 'eventId', direction: 'asc' },
      });
      if (rows.length === 0) return;
      await bus.publish(
        Topics.orgsOrganization,
        rows.map((r) => ({ key: r.orgId, value: r.payload })),
      );
      await adapter.deleteMany({
        model: MODEL,
        where: [{ field: 'id', operator: 'in', value: rows.map((r) => r.id) }],
      });
    }
  };
  const relay = () => {
    running ??= relayOnce()
      .catch((err: unknown) => deps.logger.warn({ err }, 'organization event relay will retry'))
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const record: OrgEventRecorder = async (type, data) => {
    if (!adapter) throw new Error('organization event outbox used before start');
    const id = deps.ids.next();
    const event = { id, type, version: 1, occurredAt: deps.clock.now().toISOString(), data } as OrganizationEvent;
    const payload = encodeEvent(Topics.orgsOrganization, event);
    await adapter.create({ model: MODEL, data: { eventId: id, orgId: data.orgId, payload } });
    queueMicrotask(() => void relay());
  };

  return {
    record,
    start(a: OutboxAdapter, b: EventBus) {
      adapter = a;
      bus = b;
      const tick = () => {
        if (stopped) return;
        void relay().finally(() => {
          if (!stopped) timer = setTimeout(tick, deps.pollMs ?? 500);
        });
      };
      tick();
    },
    /** Publishes what is pending now, then stops polling. */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await relayOnce().catch(() => {});
    },
  };
}
