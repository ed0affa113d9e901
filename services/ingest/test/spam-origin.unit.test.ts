import { describe, expect, it } from 'vitest';
import { createOriginLayer } from '../src/spam/origin.ts';
import { form, spamRequest } from './spam-fixtures.ts';

const layer = createOriginLayer();
const shop = form({ allowedOrigins: ['https://Shop.example', 'http://localhost:8080/'] });
const check = (mode: 'off' | 'flag' | 'reject', headers: Record<string, string>, f = shop) =>
  layer.check(spamRequest({ form: f, settings: { origins: mode }, headers }));

describe('origin layer', () => {
  it('passes an allowed Origin (normalised: case, default port, trailing slash)', () => {
    expect(check('reject', { origin: 'https://shop.example' })).toEqual({ verdict: 'pass' });
    expect(check('reject', { origin: 'https://shop.example:443' })).toEqual({ verdict: 'pass' });
    expect(check('reject', { origin: 'http://localhost:8080' })).toEqual({ verdict: 'pass' });
  });

  it('falls back to the Referer’s origin when there is no Origin', () => {
    expect(check('reject', { referer: 'https://shop.example/contact?x=1' })).toEqual({ verdict: 'pass' });
    const found = check('reject', { referer: 'https://evil.example/shop.example' });
    expect(found).toMatchObject({ verdict: 'block', reasons: [{ layer: 'origin', rule: 'origin-not-allowed' }] });
  });

  it('Origin wins over Referer', () => {
    const found = check('flag', { origin: 'https://evil.example', referer: 'https://shop.example/' });
    expect(found).toMatchObject({ verdict: 'flag', reasons: [{ rule: 'origin-not-allowed' }] });
  });

  it('reject blocks with 403 BLOCKED; flag flags', () => {
    const blocked = check('reject', { origin: 'https://evil.example' });
    expect(blocked.verdict).toBe('block');
    if (blocked.verdict !== 'block') return;
    expect(blocked.error.code).toBe('BLOCKED');
    expect(blocked.error.status).toBe(403);
    expect(blocked.reasons[0]?.detail).toContain('https://evil.example');
    expect(check('flag', { origin: 'https://evil.example' })).toMatchObject({ verdict: 'flag' });
  });

  it('a subdomain or another scheme is another origin', () => {
    expect(check('reject', { origin: 'https://www.shop.example' }).verdict).toBe('block');
    expect(check('reject', { origin: 'http://shop.example' }).verdict).toBe('block');
  });

  it('Origin: null and non-http(s) values are not allowed', () => {
    expect(check('reject', { origin: 'null' })).toMatchObject({
      verdict: 'block',
      reasons: [{ rule: 'origin-not-allowed' }],
    });
    expect(check('flag', { referer: 'file:///tmp/form.html' })).toMatchObject({ verdict: 'flag' });
  });

  it('no Origin and no Referer (a non-browser client) is flagged, never blocked, in both modes', () => {
    expect(check('reject', {})).toMatchObject({
      verdict: 'flag',
      reasons: [{ layer: 'origin', rule: 'origin-missing' }],
    });
    expect(check('flag', {})).toMatchObject({ verdict: 'flag', reasons: [{ rule: 'origin-missing' }] });
  });

  it('passes everything when off or when the form lists no origins', () => {
    expect(check('off', { origin: 'https://evil.example' })).toEqual({ verdict: 'pass' });
    expect(check('reject', { origin: 'https://evil.example' }, form())).toEqual({ verdict: 'pass' });
    expect(check('reject', {}, form())).toEqual({ verdict: 'pass' });
  });
});
