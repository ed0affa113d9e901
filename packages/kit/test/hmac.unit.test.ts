import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256 } from '../src/signed-tokens.ts';

describe('hmacSha256 (two one-shot hashes)', () => {
  it('gives the bytes of createHmac for keys shorter than, equal to and longer than the block, any message', () => {
    for (const length of [0, 1, 32, 63, 64, 65, 200]) {
      const key = randomBytes(length);
      const mac = hmacSha256(key);
      for (const message of ['', 'a', `time-trap.${'x'.repeat(100)}`, 'é'.repeat(70), '\u0000\uffff']) {
        expect(mac(message).toString('hex'), `key ${length} B`).toBe(
          createHmac('sha256', key).update(message).digest('hex'),
        );
      }
    }
  });

  it('depends on the key', () => {
    expect(hmacSha256(Buffer.from('a'.repeat(32)))('m').equals(hmacSha256(Buffer.from('b'.repeat(32)))('m'))).toBe(
      false,
    );
  });
});
