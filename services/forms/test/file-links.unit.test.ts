import { describe, expect, it } from 'vitest';
import {
  attachmentDisposition,
  createFileLinks,
  FILE_LINK_TTL_SECONDS,
  servedContentType,
} from '../src/files/file-links.ts';

const grant = { orgId: 'org_a', formId: 'f1', submissionId: 's1', blobKey: 'blob_key_123' };
const now = Date.UTC(2026, 0, 1);

describe('signed file links', () => {
  const links = createFileLinks('s'.repeat(40));

  it('accepts its own token until it expires', () => {
    const { token, expiresAt } = links.sign(grant, now);
    expect(expiresAt).toBe(new Date(now + FILE_LINK_TTL_SECONDS * 1000).toISOString());
    expect(links.verify(token, now + 1000)).toEqual({ ...grant, exp: (now + FILE_LINK_TTL_SECONDS * 1000) / 1000 });
    expect(links.verify(token, now + FILE_LINK_TTL_SECONDS * 1000)).toBeNull();
  });

  it('refuses a token altered anywhere, signed with another secret, or malformed', () => {
    const { token } = links.sign(grant, now);
    const [payload, signature] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify(['org_b', 'f1', 's1', 'blob_key_123', 9_999_999_999])).toString(
      'base64url',
    );
    for (const bad of [
      `${forged}.${signature}`,
      `${payload}.${signature.slice(0, -2)}AA`,
      `${payload}.`,
      `${payload}.${signature}.x`,
      createFileLinks('t'.repeat(40)).sign(grant, now).token,
      'not-a-token',
      'x'.repeat(5_000),
    ]) {
      expect(links.verify(bad, now)).toBeNull();
    }
    expect(() => createFileLinks('short')).toThrow();
  });

  it('serves anything that could render as application/octet-stream', () => {
    for (const t of [
      'text/html',
      'image/svg+xml',
      'application/xml',
      'text/xml',
      'application/javascript',
      'text/javascript',
      'application/xhtml+xml',
      '',
      'TEXT/HTML; charset=utf-8',
    ]) {
      expect(servedContentType(t)).toBe('application/octet-stream');
    }
    expect(servedContentType('image/PNG')).toBe('image/png');
    expect(servedContentType('text/plain; charset=latin1')).toBe('text/plain; charset=utf-8');
  });

  it('names the attachment safely: no path, quotes or control characters, UTF-8 kept in filename*', () => {
    // The last path part is the name (`/` and `\` separate paths).
    expect(attachmentDisposition('<script>alert(1)</script>.html')).toBe(
      `attachment; filename="script>.html"; filename*=UTF-8''script%3E.html`,
    );
    expect(attachmentDisposition('../../etc/passwd')).toBe(`attachment; filename="passwd"; filename*=UTF-8''passwd`);
    expect(attachmentDisposition('a"b\r\nc\u202e.pdf')).toBe(
      `attachment; filename="abc.pdf"; filename*=UTF-8''abc.pdf`,
    );
    expect(attachmentDisposition('Résumé 100%.pdf')).toBe(
      `attachment; filename="R_sum_ 100_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20100%25.pdf`,
    );
    expect(attachmentDisposition('..')).toBe(`attachment; filename="file"; filename*=UTF-8''file`);
  });
});
