import { DEFAULT_FORM_SETTINGS, type FormSettings } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { defaultNext, safeRedirect } from '../src/redirects.ts';

const settings: FormSettings = { ...DEFAULT_FORM_SETTINGS, allowedOrigins: ['https://allowed.com'] };
const allowedReferer = 'https://allowed.com/contact?from=nav';
const base = 'https://forms.example';

describe('safeRedirect: C13 open redirects', () => {
  it.each([
    ['another origin', 'https://evil.com'],
    ['a protocol-relative URL', '//evil.com'],
    ['a backslash path', '/\\evil.com'],
    ['a backslash-slash path', '\\/evil.com'],
    ['a scheme without slashes', 'https:evil.com'],
    ['userinfo naming the allowed host', 'https://allowed.com@evil.com'],
    ['userinfo with a password', 'https://user:pw@allowed.com/'],
    ['a suffix domain', 'https://allowed.com.evil.com'],
    ['a lookalike prefix', 'https://evilallowed.com'],
    ['http instead of https', 'http://allowed.com/thanks'],
    ['another port', 'https://allowed.com:8443/thanks'],
    ['javascript:', 'javascript:alert(1)'],
    ['javascript: with case and padding', '  JaVaScRiPt:alert(1)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['vbscript:', 'vbscript:msgbox(1)'],
    ['a relative path without a slash', 'thanks'],
    ['a 10 KB URL on the allowed origin', `https://allowed.com/${'a'.repeat(10_000)}`],
    ['an empty value', ''],
  ])('refuses %s', (_label, candidate) => {
    expect(safeRedirect(candidate, settings, allowedReferer)).toBeNull();
  });

  it('refuses when no redirect was given', () => {
    expect(safeRedirect(undefined, settings, allowedReferer)).toBeNull();
  });

  it('refuses a relative path whose tab or newline turns it protocol-relative', () => {
    expect(safeRedirect('/\t/evil.com', settings, allowedReferer)).toBeNull();
    expect(safeRedirect('/\n/evil.com/x', settings, allowedReferer)).toBeNull();
  });

  it('keeps a URL on an allowed origin as it is', () => {
    expect(safeRedirect('https://allowed.com/thanks?x=1#done', settings)).toBe('https://allowed.com/thanks?x=1#done');
  });

  it('normalises an allowed URL (host case, default port, surrounding spaces)', () => {
    expect(safeRedirect('  https://ALLOWED.com:443/thanks ', settings)).toBe('https://allowed.com/thanks');
  });

  it('resolves a relative path against an allowed Referer', () => {
    expect(safeRedirect('/thanks?ok=1', settings, allowedReferer)).toBe('https://allowed.com/thanks?ok=1');
  });

  it('refuses a relative path when the Referer is foreign, missing or not a URL', () => {
    expect(safeRedirect('/thanks', settings, 'https://evil.com/page')).toBeNull();
    expect(safeRedirect('/thanks', settings, 'https://allowed.com.evil.com/page')).toBeNull();
    expect(safeRedirect('/thanks', settings)).toBeNull();
    expect(safeRedirect('/thanks', settings, 'not a url')).toBeNull();
    expect(safeRedirect('/thanks', settings, 'javascript:alert(1)')).toBeNull();
  });

  it('allows the origin of the form’s own redirect URL', () => {
    const own: FormSettings = { ...DEFAULT_FORM_SETTINGS, redirectUrl: 'https://site.example/ok' };
    expect(safeRedirect('https://site.example/other', own)).toBe('https://site.example/other');
    expect(safeRedirect('https://allowed.com/thanks', own)).toBeNull();
  });

  it('allows nothing when the form names no origins', () => {
    expect(safeRedirect('https://allowed.com/thanks', DEFAULT_FORM_SETTINGS, allowedReferer)).toBeNull();
    expect(safeRedirect('/thanks', DEFAULT_FORM_SETTINGS, allowedReferer)).toBeNull();
  });

  it('ignores allowed-origin entries that are not http(s) URLs, and takes only the origin of one with a path', () => {
    const odd: FormSettings = {
      ...DEFAULT_FORM_SETTINGS,
      allowedOrigins: ['not a url', 'javascript:alert(1)', 'https://site.example/some/path'],
    };
    expect(safeRedirect('javascript:alert(1)', odd)).toBeNull();
    expect(safeRedirect('https://site.example/elsewhere', odd)).toBe('https://site.example/elsewhere');
  });
});

describe('defaultNext', () => {
  it('is the form’s redirect URL when it has one', () => {
    const own: FormSettings = { ...DEFAULT_FORM_SETTINGS, redirectUrl: 'https://site.example/ok' };
    expect(defaultNext(own, base, allowedReferer)).toBe('https://site.example/ok');
  });

  it('is the thank-you page linking back to the submitting page', () => {
    const next = new URL(defaultNext(DEFAULT_FORM_SETTINGS, base, 'https://any.example/contact?a=1&b=2'));
    expect(next.origin).toBe(base);
    expect(next.pathname).toBe('/form/submission-received');
    expect(next.searchParams.get('referer')).toBe('https://any.example/contact?a=1&b=2');
  });

  it.each([
    ['missing', undefined],
    ['not a URL', 'nonsense'],
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,x'],
  ])('links back to the public base URL when the Referer is %s', (_label, referer) => {
    expect(defaultNext(DEFAULT_FORM_SETTINGS, base, referer)).toBe(
      `${base}/form/submission-received?referer=${encodeURIComponent(base)}`,
    );
  });
});
