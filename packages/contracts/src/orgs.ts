import { z } from 'zod';
import { emailAddress } from './email-address.ts';
import { SpamSettingsPatchSchema, SpamSettingsPatchViewSchema } from './spam.ts';

const envelope = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({ id: z.string(), type: z.literal(type), version: z.literal(1), occurredAt: z.string(), data });

/** Who did it: a user of the organization, or nobody (a system action such as an expiry). */
const ActorSchema = z.object({ userId: z.string(), email: z.string().nullable() }).nullable();
const orgData = <S extends z.ZodRawShape>(shape: S) => z.object({ orgId: z.string(), actor: ActorSchema, ...shape });

const member = { memberId: z.string(), userId: z.string(), role: z.string() };
const team = { teamId: z.string(), name: z.string() };
const invitation = { invitationId: z.string(), email: z.string(), role: z.string() };
const user = { userId: z.string(), email: z.string() };

/**
 * Organization lifecycle, published by the gateway (better-auth hooks) to `orgs.organization`, keyed by orgId; and
 * what the audit log records of other services (`erasure.completed`, by forms).
 */
export const OrganizationEventSchema = z.discriminatedUnion('type', [
  envelope('organization.created', orgData({ name: z.string(), slug: z.string() })),
  envelope(
    'organization.updated',
    orgData({
      name: z.string(),
      slug: z.string(),
      requireTwoFactor: z.enum(['true', 'false']).optional(),
      requireSso: z.enum(['true', 'false']).optional(),
    }),
  ),
  envelope('organization.deleted', orgData({ name: z.string(), slug: z.string() })),
  envelope('member.added', orgData(member)),
  envelope('member.role-updated', orgData({ ...member, previousRole: z.string() })),
  envelope('member.removed', orgData(member)),
  envelope('invitation.created', orgData({ ...invitation, expiresAt: z.string() })),
  envelope('invitation.accepted', orgData(invitation)),
  envelope('invitation.canceled', orgData(invitation)),
  envelope('team.created', orgData(team)),
  envelope('team.updated', orgData(team)),
  envelope('team.deleted', orgData(team)),
  /**
   * An erasure by submitter (issue 31), published by forms once its receipt is kept (its id is the event's): who
   * asked (`actor`), the address only as its keyed hash, how many submissions it erased.
   */
  envelope('erasure.completed', orgData({ erasureId: z.string(), addressKey: z.string(), count: z.string() })),
  /**
   * Security events of a member (issue 32), recorded by the gateway in each organization the user belongs to:
   * sign-ins (`method`: password, two-factor, backup-code, passkey, sso), failed ones (`reason`: password, two-factor; the actor
   * is unknown, `email` is the account's), and two-factor changes.
   */
  envelope('user.signed-in', orgData({ ...user, method: z.string() })),
  envelope('user.sign-in-failed', orgData({ ...user, reason: z.string() })),
  envelope('two-factor.enabled', orgData(user)),
  envelope('two-factor.disabled', orgData(user)),
  envelope('two-factor.backup-codes-regenerated', orgData(user)),
  /** A passkey registered (`name` as the member named it) or removed by the member. */
  envelope('passkey.added', orgData({ ...user, passkeyId: z.string(), name: z.string() })),
  envelope('passkey.removed', orgData({ ...user, passkeyId: z.string() })),
  /**
   * The organization's identity provider for single sign-on, by the owner or admin who registered it, changed it,
   * verified its email domain (`domain`, comma-separated when several) or removed it.
   */
  envelope('sso.provider-registered', orgData({ providerId: z.string(), domain: z.string() })),
  envelope('sso.provider-updated', orgData({ providerId: z.string(), domain: z.string() })),
  envelope('sso.domain-verified', orgData({ providerId: z.string(), domain: z.string() })),
  envelope('sso.provider-removed', orgData({ providerId: z.string(), domain: z.string() })),
  /** Organization API keys, by the gateway: created, and revoked (by a member, or with the member who made it). */
  envelope('api-key.created', orgData({ keyId: z.string(), name: z.string(), scope: z.string() })),
  envelope('api-key.revoked', orgData({ keyId: z.string(), name: z.string() })),
  /**
   * The organization's plan changed (by the gateway): its Stripe subscription (`source` stripe; `status` Stripe's,
   * `none` without a subscription) or an operator's grant (`source` operator).
   */
  envelope('plan.changed', orgData({ plan: z.string(), status: z.string(), source: z.string() })),
  /**
   * Submissions leaving Formgate in bulk, by forms, before the export is sent: a form's export (`kind`
   * submissions, `formId`, `format`) or a subject access request (`kind` subject-access, the address as its keyed
   * hash, `count` submissions).
   */
  envelope(
    'export.created',
    orgData({
      kind: z.enum(['submissions', 'subject-access']),
      formId: z.string().optional(),
      format: z.string().optional(),
      addressKey: z.string().optional(),
      count: z.string().optional(),
    }),
  ),
]);
export type OrganizationEvent = z.infer<typeof OrganizationEventSchema>;
export type OrganizationEventType = OrganizationEvent['type'];

/** Organization settings keys of the spec (§3), with the feature flag each one drives. */
export const ORG_SETTING_KEYS = ['submission_notification_email', 'email_management'] as const;
export const FEATURE_FLAGS = { emailManagement: 'email_management' } as const;
export type FeatureFlag = keyof typeof FEATURE_FLAGS;

export const OrgSettingsSchema = z.object({
  submission_notification_email: emailAddress().nullable().optional(),
  email_management: z.boolean().optional(),
  /**
   * The organization's spam defaults (issue 14), merged key by key by a PATCH; `null` drops them (the built-in
   * defaults apply). Reads carry the captcha `secret` as null with `secretSet` beside it.
   */
  spam: SpamSettingsPatchSchema.nullable().optional(),
});
export type OrgSettings = z.infer<typeof OrgSettingsSchema>;

/** The dashboard's "add an email": the address that receives the organization's submission notifications. */
export const NotificationEmailRequestSchema = z.object({
  email: emailAddress(),
});
export type NotificationEmailRequest = z.infer<typeof NotificationEmailRequestSchema>;

/** `GET|PATCH /api/v1/orgs/settings`: the settings with the spam defaults as the API shows them (no captcha secret). */
export const OrgSettingsDtoSchema = OrgSettingsSchema.extend({ spam: SpamSettingsPatchViewSchema.nullable() });
export type OrgSettingsDto = z.infer<typeof OrgSettingsDtoSchema>;

/**
 * One entry of the audit log (`GET /api/v1/orgs/audit-log` and its chain): an organization event, with its place in
 * the organization's hash chain (`audit-chain.ts`).
 */
export const AuditEntryDtoSchema = z.object({
  id: z.string(),
  type: z.string(),
  actor: z.object({ userId: z.string(), email: z.string().nullable() }).nullable(),
  occurredAt: z.string(),
  data: z.record(z.string(), z.string()),
  seq: z.number().int(),
  prevHash: z.string(),
  hash: z.string(),
});
export type AuditEntryDto = z.infer<typeof AuditEntryDtoSchema>;

const isoTime = z.iso.datetime({ offset: true }).transform((t) => new Date(t).toISOString());

/** `GET /api/v1/orgs/audit-log`: a page, narrowed by type (comma-separated), actor email and time. */
export const AuditLogQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(400).optional(),
  type: z
    .string()
    .max(1000)
    .optional()
    .transform((t) =>
      t
        ? t
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean)
        : undefined,
    ),
  actor: z.string().max(320).trim().optional(),
  from: isoTime.optional(),
  to: isoTime.optional(),
});
export type AuditLogQuery = z.input<typeof AuditLogQuerySchema>;

/** `GET /api/v1/orgs/audit-log/chain`: the chain in order, after entry `after`. */
export const AuditChainQuerySchema = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});
/** A page of the chain; `next` is the `after` of the next page, null at the end. */
export const AuditChainPageDtoSchema = z.object({
  orgId: z.string(),
  data: z.array(AuditEntryDtoSchema),
  next: z.number().int().nullable(),
});
export type AuditChainPageDto = z.infer<typeof AuditChainPageDtoSchema>;

/** `GET /api/v1/flags/{flag}`. */
export const FlagDtoSchema = z.object({
  flag: z.enum(Object.keys(FEATURE_FLAGS) as [FeatureFlag]),
  enabled: z.boolean(),
});
export type FlagDto = z.infer<typeof FlagDtoSchema>;
