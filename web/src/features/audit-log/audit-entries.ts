import type { AuditEntryDto } from '@formgate/contracts';

/*
 * The audit log's entries as people read them: who did it, a sentence for what was done, and the types the filter
 * offers. An entry's data is text from the server (names, addresses): the sentences are rendered as text only.
 */

type Data = AuditEntryDto['data'];

/** Names the entries refer to by id, where the dashboard knows them (a current member, a listed form). */
export interface AuditNames {
  member: (userId: string) => string | undefined;
  form: (formId: string) => string | undefined;
}

/** The entry types the filter offers, grouped; `any` names the choice of every type of its group. */
export const AUDIT_TYPE_GROUPS: { label: string; any?: string; types: [type: string, label: string][] }[] = [
  {
    label: 'Organization',
    any: 'Any organization change',
    types: [
      ['organization.created', 'Organization created'],
      ['organization.updated', 'Organization updated'],
      ['organization.deleted', 'Organization deleted'],
    ],
  },
  {
    label: 'Members',
    any: 'Any member change',
    types: [
      ['member.added', 'Member added'],
      ['member.role-updated', 'Role changed'],
      ['member.removed', 'Member removed'],
    ],
  },
  {
    label: 'Invitations',
    any: 'Any invitation',
    types: [
      ['invitation.created', 'Invitation sent'],
      ['invitation.accepted', 'Invitation accepted'],
      ['invitation.canceled', 'Invitation canceled'],
    ],
  },
  {
    label: 'Teams',
    any: 'Any team change',
    types: [
      ['team.created', 'Team created'],
      ['team.updated', 'Team updated'],
      ['team.deleted', 'Team deleted'],
    ],
  },
  {
    label: 'Sign-in and security',
    any: 'Any sign-in or security change',
    types: [
      ['user.signed-in', 'Signed in'],
      ['user.sign-in-failed', 'Failed sign-in'],
      ['two-factor.enabled', 'Two-factor turned on'],
      ['two-factor.disabled', 'Two-factor turned off'],
      ['two-factor.backup-codes-regenerated', 'Backup codes regenerated'],
      ['passkey.added', 'Passkey added'],
      ['passkey.removed', 'Passkey removed'],
    ],
  },
  {
    label: 'Single sign-on',
    any: 'Any single sign-on change',
    types: [
      ['sso.provider-registered', 'Identity provider connected'],
      ['sso.provider-updated', 'Identity provider changed'],
      ['sso.domain-verified', 'Domain verified'],
      ['sso.provider-removed', 'Identity provider removed'],
    ],
  },
  {
    label: 'API keys',
    any: 'Any API key change',
    types: [
      ['api-key.created', 'API key created'],
      ['api-key.revoked', 'API key revoked'],
    ],
  },
  { label: 'Billing', types: [['plan.changed', 'Plan changed']] },
  {
    label: 'Data',
    any: 'Any export or erasure',
    types: [
      ['export.created', 'Submissions exported'],
      ['erasure.completed', "A person's data erased"],
    ],
  },
];

/** Every value the type filter can take: one type, or the comma-separated types of a group. */
export const AUDIT_TYPE_CHOICES = new Set(
  AUDIT_TYPE_GROUPS.flatMap((g) => [...g.types.map(([type]) => type), g.types.map(([type]) => type).join(',')]),
);

/** Who did it: the actor's email, a current member's for an actor without one, "Formgate" for the system. */
export function actorOf(entry: Pick<AuditEntryDto, 'actor'>, names: AuditNames): string {
  if (!entry.actor) return 'Formgate';
  return entry.actor.email ?? names.member(entry.actor.userId) ?? `User ${entry.actor.userId}`;
}

const quoted = (value: string | undefined) => (value ? ` "${value}"` : '');
const asRole = (role: string | undefined) => (role ? ` as ${role}` : '');
/** The member an entry is about: its address, a current member's, or "a member". */
const person = (d: Data, names: AuditNames) => d.email ?? (d.userId ? names.member(d.userId) : undefined) ?? 'a member';
const plural = (count: number, one: string) => `${count.toLocaleString('en')} ${count === 1 ? one : `${one}s`}`;
/** A count the data holds as text, when it is one. */
const countOf = (text: string | undefined) => (text && /^\d+$/.test(text) ? Number(text) : undefined);

function roleChange(d: Data, names: AuditNames): string {
  const whose = `${person(d, names)}'s role`;
  if (!d.role) return `Changed ${whose}`;
  return d.previousRole ? `Changed ${whose} from ${d.previousRole} to ${d.role}` : `Changed ${whose} to ${d.role}`;
}

/** A form's submissions exported, or what is held about one address (a subject access request). */
function exported(d: Data, names: AuditNames): string {
  if (d.kind === 'subject-access') {
    const count = countOf(d.count);
    const found = count === undefined ? '' : ` (${plural(count, 'submission')})`;
    return `Exported the data of one address${found}`;
  }
  const form = d.formId ? names.form(d.formId) : undefined;
  return `Exported submissions of ${form ? `"${form}"` : 'a form'}${d.format ? ` (${d.format.toUpperCase()})` : ''}`;
}

const SIGN_IN_METHODS = new Map([
  ['password', ' with a password'],
  ['two-factor', ' with a two-factor code'],
  ['backup-code', ' with a backup code'],
  ['passkey', ' with a passkey'],
  ['sso', ' with single sign-on'],
]);
const SIGN_IN_STEPS = new Map([
  ['password', ' at the password step'],
  ['two-factor', ' at the two-factor step'],
]);

function signInFailed(d: Data): string {
  return `Failed sign-in${d.email ? ` for ${d.email}` : ''}${SIGN_IN_STEPS.get(d.reason ?? '') ?? ''}`;
}

/** `requireTwoFactor` and `requireSso` are the settings as they stand after the change (each absent on older entries). */
const TWO_FACTOR_SETTING = new Map([
  ['true', 'two-factor required of members'],
  ['false', 'two-factor not required'],
]);
const SSO_SETTING = new Map([
  ['true', 'single sign-on required of members'],
  ['false', 'single sign-on not required'],
]);
function organizationUpdated(d: Data): string {
  const settings = [TWO_FACTOR_SETTING.get(d.requireTwoFactor ?? ''), SSO_SETTING.get(d.requireSso ?? '')].filter(
    Boolean,
  );
  return `Updated the organization${quoted(d.name)}${settings.length > 0 ? ` (${settings.join('; ')})` : ''}`;
}

/** The provider's domains (comma-separated in the data), as a sentence lists them. */
const domains = (d: Data) =>
  (d.domain ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .join(', ');
const ofDomains = (d: Data) => (domains(d) ? ` (${domains(d)})` : '');

function erased(d: Data): string {
  const count = countOf(d.count);
  return count === undefined
    ? 'Erased the submissions of one address'
    : `Erased ${plural(count, 'submission')} of one address`;
}

const SENTENCES = new Map<string, (d: Data, names: AuditNames) => string>([
  ['organization.created', (d) => `Created the organization${quoted(d.name)}`],
  ['organization.updated', organizationUpdated],
  ['organization.deleted', (d) => `Deleted the organization${quoted(d.name)}`],
  ['member.added', (d, n) => `Added ${person(d, n)}${asRole(d.role)}`],
  ['member.role-updated', roleChange],
  ['member.removed', (d, n) => `Removed ${person(d, n)} from the organization`],
  ['invitation.created', (d) => `Invited ${d.email ?? 'someone'}${asRole(d.role)}`],
  ['invitation.accepted', (d) => `Accepted the invitation for ${d.email ?? 'someone'}${asRole(d.role)}`],
  ['invitation.canceled', (d) => `Canceled the invitation for ${d.email ?? 'someone'}`],
  ['team.created', (d) => `Created the team${quoted(d.name)}`],
  ['team.updated', (d) => `Updated the team${quoted(d.name)}`],
  ['team.deleted', (d) => `Deleted the team${quoted(d.name)}`],
  ['user.signed-in', (d) => `Signed in${SIGN_IN_METHODS.get(d.method ?? '') ?? ''}`],
  ['user.sign-in-failed', signInFailed],
  ['two-factor.enabled', () => 'Turned on two-factor'],
  ['two-factor.disabled', () => 'Turned off two-factor'],
  ['two-factor.backup-codes-regenerated', () => 'Generated new two-factor backup codes'],
  ['passkey.added', (d) => `Added a passkey${quoted(d.name)}`],
  ['passkey.removed', () => 'Removed a passkey'],
  ['sso.provider-registered', (d) => `Connected an identity provider for single sign-on${ofDomains(d)}`],
  ['sso.provider-updated', (d) => `Changed the identity provider for single sign-on${ofDomains(d)}`],
  ['sso.domain-verified', (d) => `Verified ${domains(d) || 'the domain'} for single sign-on`],
  ['sso.provider-removed', (d) => `Removed the identity provider for single sign-on${ofDomains(d)}`],
  ['api-key.created', (d) => `Created API key${quoted(d.name || d.keyId)}`],
  ['api-key.revoked', (d) => `Revoked API key${quoted(d.name || d.keyId)}`],
  ['plan.changed', (d) => (d.plan ? `Changed the plan to ${d.plan}` : 'Changed the plan')],
  ['export.created', exported],
  ['erasure.completed', erased],
]);

/** What was done, as a sentence; a type this dashboard does not know reads as the type and its data. */
export function describeAuditEntry(entry: Pick<AuditEntryDto, 'type' | 'data'>, names: AuditNames): string {
  const sentence = SENTENCES.get(entry.type);
  if (sentence) return sentence(entry.data, names);
  const fields = Object.entries(entry.data).map(([key, value]) => `${key}: ${value}`);
  return fields.length > 0 ? `${entry.type} — ${fields.join(', ')}` : entry.type;
}
