import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { requestSource } from '../src/request-source.ts';

const sourceOf = (headers: IncomingMessage['headers']) => requestSource({ headers } as IncomingMessage);

describe('requestSource: the Origin and Referer a submission records', () => {
  it('keeps an http(s) Origin as scheme, host and port', () => {
    expect(sourceOf({ origin: 'https://Shop.Example:443' })).toEqual({ origin: 'https://shop.example' });
    expect(sourceOf({ origin: 'http://localhost:8080' })).toEqual({ origin: 'http://localhost:8080' });
  });

  it('keeps an http(s) Referer without its fragment or credentials', () => {
    expect(sourceOf({ referer: 'https://u:p@shop.example/a/b?x=1&y=%20#top' })).toEqual({
      referer: 'https://shop.example/a/b?x=1&y=%20',
    });
  });

  it.each([
    ['javascript:alert(1)'],
    ['JavaScript:alert(1)//https://shop.example'],
    ['data:text/html,<script>alert(1)</script>'],
    ['vbscript:msgbox(1)'],
    ['file:///etc/passwd'],
    ['ftp://shop.example'],
    ['null'],
    ['/relative/path'],
    ['shop.example'],
    [''],
  ])('drops %j', (value) => {
    expect(sourceOf({ origin: value, referer: value })).toEqual({});
  });

  it('records nothing without the headers, or when one is repeated into a list', () => {
    expect(sourceOf({})).toEqual({});
    expect(sourceOf({ origin: 'https://a.example, https://b.example' })).toEqual({});
  });

  it('cuts both to 2,048 characters', () => {
    const long = `https://shop.example/${'a'.repeat(3_000)}`;
    expect(sourceOf({ referer: long }).referer).toBe(long.slice(0, 2_048));
    const host = `https://${'a'.repeat(3_000)}.example`;
    expect(sourceOf({ origin: host }).origin).toBe(host.slice(0, 2_048));
  });
});
