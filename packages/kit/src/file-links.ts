import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

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
export function createFileLinks(secret: string) {
  if (secret.length < 32) throw new Error('the file link secret must be at least 32 characters');
  const mac = (payload: string) => createHmac('sha256', secret).update(`file-link.${payload}`).digest();
  return {
    /** A token valid `ttlSeconds` from `nowMs` (the dashboard's 5 minutes by default; mails use longer). */
    sign(
      grant: Omit<FileGrant, 'exp'>,
      nowMs: number,
      ttlSeconds = FILE_LINK_TTL_SECONDS,
    ): { token: string; expiresAt: string } {
      const exp = Math.floor(nowMs / 1000) + ttlSeconds;
      const payload = Buffer.from(
        JSON.stringify([grant.orgId, grant.formId, grant.submissionId, grant.blobKey, exp]),
      ).toString('base64url');
      return {
        token: `${payload}.${mac(payload).toString('base64url')}`,
        expiresAt: new Date(exp * 1000).toISOString(),
      };
    },
    /** The grant of a genuine, unexpired token; `null` otherwise (never says which). */
    verify(token: string, nowMs: number): FileGrant | null {
      if (token.length > MAX_TOKEN_LENGTH) return null;
      const [payload, signature, ...rest] = token.split('.');
      if (!payload || !signature || rest.length > 0) return null;
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      let parsed: z.infer<typeof GrantSchema>;
      try {
        parsed = GrantSchema.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
      } catch {
        return null;
      }
      const [orgId, formId, submissionId, blobKey, exp] = parsed;
      if (exp * 1000 <= nowMs) return null;
      return { orgId, formId, submissionId, blobKey, exp };
    },
  };
}
export type FileLinks = ReturnType<typeof createFileLinks>;
