import { z } from 'zod';
import { emailAddress } from './email-address.ts';

/** better-auth's `minPasswordLength` in the gateway, and the sign-up form's rule in the dashboard. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;
/** What a member without two-factor is told in an organization that requires it (403 `TWO_FACTOR_REQUIRED`). */
export const TWO_FACTOR_REQUIRED_MESSAGE =
  'This organization requires two-factor authentication: set it up on your profile';
/** What a member who signed in without the organization's identity provider is told when it requires it (403 `SSO_REQUIRED`). */
export const SSO_REQUIRED_MESSAGE = 'This organization requires single sign-on: sign in through its identity provider';
/** A time-based one-time password: six digits (better-auth's two-factor plugin, RFC 6238 defaults). */
export const TotpCodeSchema = z.object({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'Enter the 6-digit code from your authenticator app'),
  trustDevice: z.boolean().optional(),
});
export type TotpCodeRequest = z.infer<typeof TotpCodeSchema>;
export const BackupCodeSchema = z.object({
  code: z.string().trim().min(1, 'Enter one of your backup codes').max(64),
  trustDevice: z.boolean().optional(),
});
export type BackupCodeRequest = z.infer<typeof BackupCodeSchema>;

export const SignInRequestSchema = z.object({
  email: emailAddress(),
  password: z.string().min(1, 'Enter your password').max(PASSWORD_MAX_LENGTH),
});
export type SignInRequest = z.infer<typeof SignInRequestSchema>;

export const SignUpRequestSchema = z.object({
  name: z.string().trim().min(1, 'Enter your name').max(100),
  email: emailAddress(),
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters`)
    .max(PASSWORD_MAX_LENGTH),
});
export type SignUpRequest = z.infer<typeof SignUpRequestSchema>;

export const CreateOrganizationRequestSchema = z.object({
  name: z.string().trim().min(1, 'Enter a name').max(100),
});
export type CreateOrganizationRequest = z.infer<typeof CreateOrganizationRequestSchema>;

/** The profile's name (better-auth `update-user`). */
export const UpdateProfileRequestSchema = z.object({
  name: z.string().trim().min(1, 'Enter your name').max(100),
});
export type UpdateProfileRequest = z.infer<typeof UpdateProfileRequestSchema>;

/** better-auth `change-password`: the current password and a new one by the sign-up rule (other sessions end). */
export const ChangePasswordRequestSchema = z.object({
  currentPassword: z.string().min(1, 'Enter your current password').max(PASSWORD_MAX_LENGTH),
  newPassword: SignUpRequestSchema.shape.password,
});
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequestSchema>;

/** An organization's name and slug (better-auth `organization/update`). */
export const UpdateOrganizationRequestSchema = z.object({
  name: CreateOrganizationRequestSchema.shape.name,
  slug: z
    .string()
    .trim()
    .min(1, 'Enter a slug')
    .max(60)
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Use lowercase letters, digits and single dashes'),
});
export type UpdateOrganizationRequest = z.infer<typeof UpdateOrganizationRequestSchema>;

/** An invitation (better-auth `organization/invite-member`); the owner role is not handed out by invitation. */
export const InviteMemberRequestSchema = z.object({
  email: emailAddress(),
  role: z.enum(['admin', 'member']),
});
export type InviteMemberRequest = z.infer<typeof InviteMemberRequestSchema>;

export const TeamNameSchema = z.object({ name: z.string().trim().min(1, 'Enter a name').max(100) });
export type TeamNameRequest = z.infer<typeof TeamNameSchema>;

/** `GET /api/v1/session`: the signed-in user, their session's active organization, and their roles in it. */
export const SessionDtoSchema = z.object({
  user: z.object({ id: z.string(), email: z.string(), name: z.string(), emailVerified: z.boolean() }),
  session: z.object({ activeOrganizationId: z.string().nullable(), expiresAt: z.string() }),
  roles: z.array(z.string()),
});
export type SessionDto = z.infer<typeof SessionDtoSchema>;

/** `GET /api/v1/users/by-email/{email}`: whether an account has this address (rate-limited per client IP). */
export const UserLookupDtoSchema = z.object({ email: z.string(), exists: z.boolean() });
export type UserLookupDto = z.infer<typeof UserLookupDtoSchema>;
