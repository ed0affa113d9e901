import { DEFAULT_SPAM_SETTINGS, type SpamRules } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { contentHits, createRulesLayer, RULE_WEIGHTS } from '../src/spam/rules.ts';
import { spamSubmission } from './spam-fixtures.ts';

const rules = (over: Partial<SpamRules>): SpamRules => ({ ...DEFAULT_SPAM_SETTINGS.rules, ...over });
const hits = (value: string, over: Partial<SpamRules>) =>
  contentHits([{ name: 'message', value }], rules(over)).map((h) => h.rule);
const layer = createRulesLayer();
const check = (values: string[], over: Partial<SpamRules>) =>
  layer.check(
    spamSubmission({
      fields: values.map((value, i) => ({ name: `f${i}`, value })),
      settings: { rules: rules(over) },
    }),
  );

describe('content rules: blocked words', () => {
  const words = { blockedWords: ['casino', 'free money', 'Straße', 'viagra'] };
  it('matches whole words and phrases, any case, across whitespace', () => {
    expect(hits('Best CASINO in town', words)).toEqual(['blocked-word']);
    expect(hits('get FREE\n  money now', words)).toEqual(['blocked-word']);
    expect(hits('casino, casino!', words)).toEqual(['blocked-word']);
  });
  it('never inside another word (Unicode letters count as letters)', () => {
    expect(hits('casinos and megacasino', words)).toEqual([]);
    expect(hits('éviagra', words)).toEqual([]);
    expect(hits('freemoney', words)).toEqual([]);
  });
  it('is Unicode-aware: case-folds non-ASCII and normalises compatibility forms', () => {
    expect(hits('die STRASSE', words)).toEqual([]);
    expect(hits('die STRAẞE', words)).toEqual(['blocked-word']);
    expect(hits('ｃａｓｉｎｏ', words)).toEqual(['blocked-word']); // full-width letters (NFKC)
  });
  it('treats words as text, never as a pattern', () => {
    expect(hits('a.b', { blockedWords: ['a.b'] })).toEqual(['blocked-word']);
    expect(hits('axb', { blockedWords: ['a.b'] })).toEqual([]);
    expect(hits('((((a', { blockedWords: ['((((a'] })).toEqual(['blocked-word']);
  });
  it('counts each distinct word once', () => {
    expect(hits('casino viagra casino', words)).toEqual(['blocked-word', 'blocked-word']);
  });
});

describe('content rules: email domains', () => {
  it('blocks a domain and its subdomains, not look-alikes', () => {
    const blocked = { blockedDomains: ['spam.example'] };
    expect(hits('write to bob@spam.example', blocked)).toEqual(['blocked-domain']);
    expect(hits('bob@mail.SPAM.example', blocked)).toEqual(['blocked-domain']);
    expect(hits('bob@notspam.example', blocked)).toEqual([]);
    expect(hits('bob@spam.example.org', blocked)).toEqual([]);
  });
  it('needs a local part and a dotted domain; trailing punctuation is not part of the domain', () => {
    const blocked = { blockedDomains: ['spam.example'] };
    expect(hits('(bob@spam.example).', blocked)).toEqual(['blocked-domain']);
    expect(hits('mail: bob@spam.example, thanks', blocked)).toEqual(['blocked-domain']);
    expect(hits('@spam.example', blocked)).toEqual([]);
    expect(hits('bob@ spam.example', blocked)).toEqual([]);
  });
  it('reads long hostile values in linear time (no regular-expression backtracking)', () => {
    const over = { blockedDomains: ['spam.example'], disposableEmails: true, blockedWords: ['casino'], maxLinks: 1 };
    const started = performance.now();
    expect(hits('a'.repeat(64 * 1024), over)).toEqual([]);
    expect(hits('a@'.repeat(32 * 1024), over)).toEqual([]);
    expect(hits(`x@${'b'.repeat(64 * 1024)}`, over)).toEqual([]);
    expect(hits('x@a.'.repeat(16 * 1024), over)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
  it('recognises disposable providers from the maintained list (and their subdomains)', () => {
    expect(hits('me@mailinator.com', { disposableEmails: true })).toEqual(['disposable-email']);
    expect(hits('me@x.mailinator.com', { disposableEmails: true })).toEqual(['disposable-email']);
    expect(hits('me@gmail.com', { disposableEmails: true })).toEqual([]);
    expect(hits('me@mailinator.com', { disposableEmails: false })).toEqual([]);
  });
});

describe('content rules: links', () => {
  it('scores links across all fields over maxLinks', () => {
    expect(hits('http://a.example https://b.example', { maxLinks: 2 })).toEqual([]);
    expect(hits('http://a.example https://b.example HTTP://c.example', { maxLinks: 2 })).toEqual(['too-many-links']);
    expect(hits('http://a.example', { maxLinks: 0 })).toEqual(['too-many-links']);
    expect(hits('http://a.example '.repeat(50), { maxLinks: null })).toEqual([]);
  });
});

describe('content rules layer: score and threshold', () => {
  it('flags at or over the threshold with every hit as a reason, weights in the detail', () => {
    const found = check(['casino', 'me@mailinator.com', 'http://a http://b'], {
      blockedWords: ['casino'],
      disposableEmails: true,
      maxLinks: 1,
      threshold: 8,
    });
    expect(found.verdict).toBe('flag');
    if (found.verdict !== 'flag') return;
    expect(found.reasons.map((r) => r.rule)).toEqual(['blocked-word', 'disposable-email', 'too-many-links']);
    expect(found.reasons.every((r) => r.layer === 'rules' && r.detail.includes('score 8'))).toBe(true);
  });
  it('passes under the threshold', () => {
    expect(check(['http://a http://b'], { maxLinks: 1, threshold: 3 })).toEqual({ verdict: 'pass' });
    expect(RULE_WEIGHTS['too-many-links']).toBeLessThan(3);
    expect(check(['http://a http://b'], { maxLinks: 1, threshold: 2 }).verdict).toBe('flag');
  });
  it('a single blocked word, domain or disposable address reaches the default threshold', () => {
    const t = DEFAULT_SPAM_SETTINGS.rules.threshold;
    expect(RULE_WEIGHTS['blocked-word']).toBeGreaterThanOrEqual(t);
    expect(check(['nice casino'], { blockedWords: ['casino'] }).verdict).toBe('flag');
  });
  it('never puts the submitter’s text in a reason, only the matched rule', () => {
    const found = check(['secret stuff casino more secret'], { blockedWords: ['casino'] });
    if (found.verdict !== 'flag') throw new Error('expected a flag');
    expect(JSON.stringify(found.reasons)).not.toContain('secret');
  });
  it('passes when no rule is set', () => {
    expect(check(['casino http://x'], {})).toEqual({ verdict: 'pass' });
  });
});
