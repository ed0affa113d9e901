import { z } from 'zod';

/** better-auth's `minPasswordLength` in the gateway, and the sign-up form's rule in the dashboard. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;

export const SignInRequestSchema = z.object({
  email: z.email('Enter a valid email address').max(320),
  password: z.string().min(1, 'Enter your password').max(PASSWORD_MAX_LENGTH),
});
export type SignInRequest = z.infer<typeof SignInRequestSchema>;

export const SignUpRequestSchema = z.object({
  name: z.string().trim().min(1, 'Enter your name').max(100),
  email: z.email('Enter a valid email address').max(320),
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
