export {
  createFileLinks,
  FILE_LINK_TTL_SECONDS,
  type FileGrant,
  type FileLinks,
  MAX_TOKEN_LENGTH,
} from '@formgate/kit';

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
