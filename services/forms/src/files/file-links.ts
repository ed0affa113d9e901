import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** How long a signed file link works. */
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
 * of a deleted submission stops working.
 */
export function createFileLinks(secret: string) {
  if (secret.length < 32) throw new Error('the file link secret must be at least 32 characters');
  const mac = (payload: string) => createHmac('sha256', secret).update(`file-link.${payload}`).digest();
  return {
    sign(grant: Omit<FileGrant, 'exp'>, nowMs: number): { token: string; expiresAt: string } {
      const exp = Math.floor(nowMs / 1000) + FILE_LINK_TTL_SECONDS;
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

/** Types a browser shows inline without running anything; every other type is served as `application/octet-stream`. */
const INERT_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'application/pdf',
  'text/plain',
  'text/csv',
  'application/zip',
  'audio/mpeg',
  'video/mp4',
]);

/** The `Content-Type` to serve an upload with: its own when it is inert (attachment anyway), else octet-stream. */
export function servedContentType(declared: string): string {
  const base = declared.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!INERT_TYPES.has(base)) return 'application/octet-stream';
  return base.startsWith('text/') ? `${base}; charset=utf-8` : base;
}

/**
 * `Content-Disposition: attachment` for a client-supplied file name: path parts, control and format characters,
 * quotes and backslashes removed, at most 150 characters; an ASCII `filename` fallback and the exact name as
 * `filename*=UTF-8''…` (RFC 6266 / 8187).
 */
export function attachmentDisposition(rawName: string): string {
  const base = rawName.split(/[/\\]/).pop() ?? '';
  const cleaned = [...base.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}"]/gu, '').trim()].slice(0, 150).join('');
  const name = cleaned.replace(/^\.+/, '') || 'file';
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/[%;]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
