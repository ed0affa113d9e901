import { SITE_ORG } from '@formgate/accounts';
import { eventually } from '@formgate/kit/testing';
import { describe, expect, it } from 'vitest';
import type { TargetRef } from './target.ts';

/** Spec §6 organizations, invitations, teams and the access model through the gateway; run in both modes. */
export function describeOrganizationFlows(target: TargetRef) {
  describe('organizations through the gateway', () => {
    it('creates, lists, updates and reads an organization; the creator is its active owner', async () => {
      const owner = await target().accounts.signUp();
      const org = await target().accounts.createOrg(owner, 'Acme');
      // The instance's first verified user also owns the site organization (ADR 23), whichever test signs up first.
      const listed = (await owner.call('GET', '/api/auth/organization/list')).body.map((o: { id: string }) => o.id);
      expect(listed.filter((id: string) => id !== SITE_ORG.id)).toEqual([org.id]);
      expect((await owner.call('GET', '/api/auth/organization/get-active-member')).body.role).toBe('owner');
      const updated = await owner.call('POST', '/api/auth/organization/update', {
        organizationId: org.id,
        data: { name: 'Acme Inc' },
      });
      expect(updated.status).toBe(200);
      const full = await owner.call('GET', '/api/auth/organization/get-full-organization');
      expect(full.body).toMatchObject({ id: org.id, name: 'Acme Inc', members: [{ role: 'owner' }] });
    });

    it('invites by email with an expiry; the invitee accepts and becomes a member; roles change', async () => {
      const owner = await target().accounts.signUp();
      const org = await target().accounts.createOrg(owner, 'Invites');
      const before = Date.now();
      const member = await target().accounts.addMember(owner, org, 'member');
      const mail = (await target().mails(member.email)).find((m) => m.subject === 'Join Invites on Formgate');
      expect(mail?.text).toContain(`${owner.email} invited you to Invites`);
      const full = (await owner.call('GET', '/api/auth/organization/get-full-organization')).body;
      const invitation = full.invitations.find((i: { email: string }) => i.email === member.email);
      expect(invitation.status).toBe('accepted');
      const ttl = new Date(invitation.expiresAt).getTime() - before;
      expect(ttl).toBeGreaterThan(47 * 3600_000);
      expect(ttl).toBeLessThan(49 * 3600_000);

      expect((await member.call('GET', '/api/auth/organization/get-active-member')).body.role).toBe('member');
      const memberId = full.members.find((m: { user: { email: string } }) => m.user.email === member.email).id;
      const promoted = await owner.call('POST', '/api/auth/organization/update-member-role', {
        memberId,
        role: 'admin',
      });
      expect(promoted.status).toBe(200);
      expect((await member.call('GET', '/api/auth/organization/get-active-member')).body.role).toBe('admin');
    });

    it('cancels an invitation: it can no longer be accepted', async () => {
      const owner = await target().accounts.signUp();
      await target().accounts.createOrg(owner, 'Cancels');
      const invitee = await target().accounts.signUp();
      const invite = await owner.call('POST', '/api/auth/organization/invite-member', {
        email: invitee.email,
        role: 'member',
      });
      expect(invite.status).toBe(200);
      expect(
        (await owner.call('POST', '/api/auth/organization/cancel-invitation', { invitationId: invite.body.id })).status,
      ).toBe(200);
      const accept = await invitee.call('POST', '/api/auth/organization/accept-invitation', {
        invitationId: invite.body.id,
      });
      expect(accept.status).toBeGreaterThanOrEqual(400);
      expect((await invitee.call('GET', '/api/auth/organization/list')).body).toEqual([]);
    });

    it('manages teams: create, rename, list, remove', async () => {
      const owner = await target().accounts.signUp();
      await target().accounts.createOrg(owner, 'Teams');
      const team = await owner.call('POST', '/api/auth/organization/create-team', { name: 'Support' });
      expect(team.status).toBe(200);
      expect(
        (
          await owner.call('POST', '/api/auth/organization/update-team', {
            teamId: team.body.id,
            data: { name: 'Care' },
          })
        ).status,
      ).toBe(200);
      const names = (await owner.call('GET', '/api/auth/organization/list-teams')).body.map(
        (t: { name: string }) => t.name,
      );
      expect(names).toContain('Care');
      expect((await owner.call('POST', '/api/auth/organization/remove-team', { teamId: team.body.id })).status).toBe(
        200,
      );
      const after = (await owner.call('GET', '/api/auth/organization/list-teams')).body.map(
        (t: { id: string }) => t.id,
      );
      expect(after).not.toContain(team.body.id);
    });

    it('applies the access model: members change nothing, admins cannot delete, owners can', async () => {
      const owner = await target().accounts.signUp();
      const org = await target().accounts.createOrg(owner, 'Access');
      const admin = await target().accounts.addMember(owner, org, 'admin');
      const member = await target().accounts.addMember(owner, org, 'member');
      const rename = { organizationId: org.id, data: { name: 'Hijacked' } };
      const renamed = await member.call('POST', '/api/auth/organization/update', rename);
      expect(renamed.status).toBe(403);
      // better-auth's code, the spec's message (§6): the member role has no organization statement at all…
      expect(renamed.body).toMatchObject({
        code: 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION',
        message: 'You are not allowed to access resource: organization',
      });
      const team = await member.call('POST', '/api/auth/organization/create-team', { name: 'x' });
      expect(team.status).toBe(403);
      expect(team.body.message).toBe('You are not allowed to access resource: team');
      expect(
        (await member.call('POST', '/api/auth/organization/invite-member', { email: 'z@example.test', role: 'member' }))
          .status,
      ).toBe(403);
      expect((await admin.call('POST', '/api/auth/organization/create-team', { name: 'Ops' })).status).toBe(200);
      const deleted = await admin.call('POST', '/api/auth/organization/delete', { organizationId: org.id });
      expect(deleted.status).toBe(403);
      // …the admin role has one, without `delete`.
      expect(deleted.body.message).toBe('unauthorized to access resource "organization"');
      const denied = await member.call('POST', '/api/v1/forms', { name: 'Nope' });
      expect(denied.body.error).toMatchObject({
        code: 'FORBIDDEN',
        message: 'You are not allowed to access resource: form',
      });
      expect((await owner.call('POST', '/api/auth/organization/delete', { organizationId: org.id })).status).toBe(200);
    });

    it('a comma-separated role passes when any of its roles grants the permission', async () => {
      const owner = await target().accounts.signUp();
      const org = await target().accounts.createOrg(owner, 'Multi');
      const both = await target().accounts.addMember(owner, org, 'member,admin');
      expect((await both.call('POST', '/api/v1/forms', { name: 'Allowed' })).status).toBe(201);
    });

    it('publishes lifecycle events the orgs service records: audit log, settings, feature flag', async () => {
      const owner = await target().accounts.signUp();
      const org = await target().accounts.createOrg(owner, 'Audited');
      await owner.call('POST', '/api/auth/organization/create-team', { name: 'Sales' });
      const log = await eventually(async () => {
        const reply = await owner.call('GET', '/api/v1/orgs/audit-log');
        expect(reply.body.data.map((e: { type: string }) => e.type)).toEqual([
          'team.created',
          'member.added',
          'organization.created',
        ]);
        return reply.body.data;
      }, target().patienceMs);
      expect(log[2]).toMatchObject({ actor: { email: owner.email }, data: { name: 'Audited' } });
      expect((await owner.call('GET', '/api/v1/flags/emailManagement')).body).toEqual({
        flag: 'emailManagement',
        enabled: false,
      });
      const patched = await owner.call('PATCH', '/api/v1/orgs/settings', {
        email_management: true,
        submission_notification_email: 'ops@audited.example',
      });
      expect(patched.status).toBe(200);
      expect((await owner.call('GET', '/api/v1/flags/emailManagement')).body.enabled).toBe(true);
      expect((await owner.call('GET', '/api/v1/orgs/settings')).body).toEqual({
        email_management: true,
        submission_notification_email: 'ops@audited.example',
        spam: null,
      });
      expect(org.id).toBeTruthy();
    });

    it('deleting an organization purges its data in every service and revokes its API keys', async () => {
      const owner = await target().accounts.signUp();
      const org = await target().accounts.createOrg(owner, 'Doomed');
      const key = await target().accounts.createApiKey(owner);
      const form = (await owner.call('POST', '/api/v1/forms', { name: 'Soon gone' })).body;
      await target().waitForForm(form.key);
      const post = () =>
        fetch(`${target().baseUrl}/f/${form.key}`, {
          method: 'POST',
          headers: { accept: 'application/json' },
          body: new URLSearchParams({ a: '1' }),
        });
      expect((await post()).status).toBe(200);

      expect((await owner.call('POST', '/api/auth/organization/delete', { organizationId: org.id })).status).toBe(200);
      await eventually(async () => expect((await post()).status).toBe(410), target().patienceMs);
      const withKey = await fetch(`${target().baseUrl}/api/v1/forms`, { headers: { 'x-api-key': key } });
      expect(withKey.status).toBe(401);
      const session = await owner.call('GET', '/api/v1/forms');
      expect(session.status).toBe(403);
      expect(session.body.error.code).toBe('NO_ACTIVE_ORGANIZATION');
    });
  });
}
