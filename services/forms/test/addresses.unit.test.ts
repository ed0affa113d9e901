import { describe, expect, it } from 'vitest';
import { addressesOf } from '../src/privacy/addresses.ts';

const field = (value: string) => ({ name: 'f', value });

describe('addressesOf: the addresses a submission holds (erasure by submitter)', () => {
  it('finds addresses in any field and the reserved reply-to and cc, normalized and distinct', () => {
    expect(
      addressesOf([field('Bob.Smith+forms@Example.CO.uk'), field('write to bob.smith+forms@example.co.uk.')], {
        replyTo: 'Ann@example.com',
        cc: ['carl@example.org', 'not an address'],
      }).sort(),
    ).toEqual(['ann@example.com', 'bob.smith+forms@example.co.uk', 'carl@example.org']);
  });

  it('reads addresses in prose, markup, headers and links, quoted or not', () => {
    expect(
      addressesOf([
        field('"Dee" <dee@example.com>, mailto:eve@example.com; (fay@example.com) [gus@example.com]'),
        field(`<a href="mailto:hal@example.com">mail</a> 'ivy@example.com' https://x.io/?email=jay@example.com&a=1`),
        field("o'brien@example.com"),
      ]).sort(),
    ).toEqual([
      'dee@example.com',
      'eve@example.com',
      'fay@example.com',
      'gus@example.com',
      'hal@example.com',
      'ivy@example.com',
      'jay@example.com',
      "o'brien@example.com",
    ]);
  });

  it('takes no partial match: a longer address is not the shorter one, and non-addresses are none', () => {
    expect(addressesOf([field('joann@example.com')])).toEqual(['joann@example.com']);
    expect(addressesOf([field('a@b'), field('@example.com'), field('x@@example.com'), field('user@-bad.com')])).toEqual(
      [],
    );
  });

  it('reads hostile values whole (a long local part before a bad domain, many @) and finds what is there', () => {
    const hostile = `${'a'.repeat(60_000)}@!${' x@'.repeat(10_000)} real@example.com`;
    expect(addressesOf([field(hostile)])).toEqual(['real@example.com']);
  });
});
