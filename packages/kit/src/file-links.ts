import { z } from 'zod';
import { createSignedTokens, type SigningSecret } from './signed-tokens.ts';

/** How long a signed file link from the dashboard works. */
export const FILE_LINK_TTL_SECONDS = 5 * 60;
/** Longest token accepted (a real one is ~200 characters). */
export const MAX_TOKEN_LENGTH = 1_000;

/** What a link grants: one file of one submission, until `exp` (Unix seconds). */
export interface FileGrant {
  orgId: string;
  formId: string;
  submissionId: string;
  blobKey: string;
  exp: number;
}

const GrantSchema = z.tuple([z.string(), z.string(), z.string(), z.string(), z.number().int()]);

/**
 * Signed, expiring file links: the token is `base64url(JSON grant).base64url(HMAC-SHA256(secret, "file-link." +
 * payload))`. It needs no session, so `<a href>` works; it names the file by its submission, so a link to a file
 * of a deleted submission stops working. The forms service serves them (`/api/v1/files/{token}`); notification
 * mails carry longer-lived ones signed with the same secret.
 */
export function createFileLinks(secret: SigningSecret) {
  const tokens = createSignedTokens(secret, 'file-link', 'file link');
  return {
    /** A token valid `ttlSeconds` from `nowMs` (the dashboard's 5 minutes by default; mails use longer). */
    sign(
      grant: Omit<FileGrant, 'exp'>,
      nowMs: number,
      ttlSeconds = FILE_LINK_TTL_SECONDS,
    ): { token: string; expiresAt: string } {
      const exp = Math.floor(nowMs / 1000) + ttlSeconds;
      const token = tokens.sign([grant.orgId, grant.formId, grant.submissionId, grant.blobKey, exp]);
      return { token, expiresAt: new Date(exp * 1000).toISOString() };
    },
    /** The grant of a genuine, unexpired token; `null` otherwise (never says which). */
    verify(token: string, nowMs: number): FileGrant | null {
      const parsed = GrantSchema.safeParse(tokens.open(token, MAX_TOKEN_LENGTH));
      if (!parsed.success) return null;
      const [orgId, formId, submissionId, blobKey, exp] = parsed.data;
      if (exp * 1000 <= nowMs) return null;
      return { orgId, formId, submissionId, blobKey, exp };
    },
  };
}
export type FileLinks = ReturnType<typeof createFileLinks>;
