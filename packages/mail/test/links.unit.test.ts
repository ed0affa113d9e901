import { describe, expect, it } from 'vitest';
import { extractLinks } from '../src/links.ts';

describe('extractLinks', () => {
  it('finds http and https URLs in order, once each, with their query strings', () => {
    const verify = 'https://app.formgate.test/verify?token=a.b_c-d&callbackURL=%2Fwelcome%3Fx%3D1';
    const text = `Open ${verify}\nor http://localhost:3000/help then ${verify} again. ftp://no.test`;
    expect(extractLinks(text)).toEqual([verify, 'http://localhost:3000/help']);
  });

  it('drops punctuation and brackets that close the sentence, not the URL', () => {
    const text = 'See https://a.test/x. Or (https://b.test/y), "https://c.test/z"; [https://d.test/w_(v)]!';
    expect(extractLinks(text)).toEqual([
      'https://a.test/x',
      'https://b.test/y',
      'https://c.test/z',
      'https://d.test/w_(v)',
    ]);
  });

  it('returns nothing for text without links', () => {
    expect(extractLinks('no links here, not even https:// alone')).toEqual([]);
  });
});
