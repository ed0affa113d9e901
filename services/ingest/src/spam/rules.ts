import type { SpamReason, SpamRules, SubmissionField } from '@formgate/contracts';
import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';
import type { AfterBodyLayer, LayerFinding, SpamSubmission } from './layer.ts';

/** Each hit's weight towards the content score; `score >= rules.threshold` flags the submission. */
export const RULE_WEIGHTS = {
  /** Per distinct blocked word or phrase found. */
  'blocked-word': 3,
  /** Per distinct email domain found that is blocked (or a subdomain of one). */
  'blocked-domain': 3,
  /** Per distinct email domain found at a disposable-address provider. */
  'disposable-email': 3,
  /** Once, when the links across all fields exceed `maxLinks`. */
  'too-many-links': 2,
} as const;
type Rule = keyof typeof RULE_WEIGHTS;

/** A letter, digit or combining mark of any script: a blocked word must not touch one on either side. */
const WORD = '[\\p{L}\\p{N}\\p{M}_]';
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The blocked-words list as one regular expression (built once per rules object, `compile`): whole words or phrases, any case. */
function wordsPattern(words: readonly string[]): RegExp | null {
  const alternatives = words
    .map((w) => w.normalize('NFKC').trim())
    .filter((w) => w !== '')
    .sort((a, b) => b.length - a.length)
    .map((w) => w.split(/\s+/u).map(escapeRegExp).join('\\s+'));
  return alternatives.length ? new RegExp(`(?<!${WORD})(?:${alternatives.join('|')})(?!${WORD})`, 'giu') : null;
}

const DOMAIN_CHAR = /^[\p{L}\p{N}.-]$/u;
const NOT_LOCAL = /^[\s@<>()[\]\\,;:"']$/u;
const MAX_DOMAIN = 253;
/** `a-z A-Z 0-9 . -`: the ASCII characters of a domain (the common case, without a regular expression). */
const isAsciiDomainChar = (c: number) =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d;

/**
 * The domains of the email-looking `local@domain` in `text`, lower-cased, into `into`. Linear in the text: it
 * jumps from `@` to `@` and reads at most 253 characters after each (a regular expression with a free-running
 * local part would backtrack quadratically over a long value without `@`).
 */
function emailDomains(text: string, into: Set<string>) {
  let at = text.indexOf('@');
  while (at >= 0) {
    let end = at + 1;
    while (end < text.length && end - at <= MAX_DOMAIN) {
      const code = text.charCodeAt(end);
      if (code < 0x80) {
        if (!isAsciiDomainChar(code)) break;
        end += 1;
        continue;
      }
      const ch = String.fromCodePoint(text.codePointAt(end) as number);
      if (!DOMAIN_CHAR.test(ch)) break;
      end += ch.length;
    }
    const local = at > 0 ? String.fromCodePoint(text.codePointAt(at - 1) as number) : '';
    const domain = text.slice(at + 1, end).replace(/^[.-]+|[.-]+$/g, '');
    if (local !== '' && !NOT_LOCAL.test(local) && /[^.]\.[^.]/.test(domain)) into.add(domain.toLowerCase());
    at = text.indexOf('@', Math.max(end, at + 1));
  }
}
const LINK = /\bhttps?:\/\//gi;

let disposable: ReadonlySet<string> | undefined;
/** The maintained list (`disposable-email-domains-js`), loaded on first use. */
const disposableDomains = () => {
  disposable ??= disposableEmailBlocklistSet();
  return disposable;
};

/** The domain and each parent of it (`a.b.example.com`, `b.example.com`, `example.com`, `com`). */
function* suffixes(domain: string) {
  let d = domain;
  for (;;) {
    yield d;
    const dot = d.indexOf('.');
    if (dot < 0) return;
    d = d.slice(dot + 1);
  }
}

/** A rules object prepared once (settings objects are replaced, never mutated, when a form or an org changes). */
interface CompiledRules {
  words: RegExp | null;
  blockedDomains: ReadonlySet<string>;
}
const compiledRules = new WeakMap<SpamRules, CompiledRules>();
function compile(rules: SpamRules): CompiledRules {
  let c = compiledRules.get(rules);
  if (!c) {
    c = {
      words: wordsPattern(rules.blockedWords),
      blockedDomains: new Set(rules.blockedDomains.map((d) => d.replace(/^@/, '').replace(/\.$/, ''))),
    };
    compiledRules.set(rules, c);
  }
  return c;
}

const RULE_ORDER = Object.keys(RULE_WEIGHTS);

/** Every rule hit in these fields under these rules, each with its reason (details name the rule's match only). */
export function contentHits(fields: readonly SubmissionField[], rules: SpamRules): { rule: Rule; detail: string }[] {
  const { words, blockedDomains } = compile(rules);
  const readDomains = blockedDomains.size > 0 || rules.disposableEmails;
  const foundWords = new Set<string>();
  const domains = new Set<string>();
  let links = 0;
  for (const { value } of fields) {
    const text = value.normalize('NFKC');
    if (words) {
      // `test` first: most values match nothing, and it costs a fraction of `matchAll`'s iterator.
      words.lastIndex = 0;
      if (words.test(text)) {
        words.lastIndex = 0;
        for (const m of text.matchAll(words)) foundWords.add(m[0].toLowerCase().replace(/\s+/gu, ' '));
      }
    }
    if (readDomains) emailDomains(text, domains);
    if (rules.maxLinks !== null && text.includes('://')) links += text.match(LINK)?.length ?? 0;
  }
  const hits: { rule: Rule; detail: string }[] = [];
  for (const word of foundWords) hits.push({ rule: 'blocked-word', detail: `blocked word "${word.slice(0, 100)}"` });
  for (const domain of domains) {
    let blocked = false;
    let isDisposable = false;
    for (const d of suffixes(domain)) {
      blocked ||= blockedDomains.has(d);
      isDisposable ||= rules.disposableEmails && disposableDomains().has(d);
    }
    if (blocked) hits.push({ rule: 'blocked-domain', detail: `email domain ${domain.slice(0, 253)} is blocked` });
    if (isDisposable) {
      hits.push({ rule: 'disposable-email', detail: `email domain ${domain.slice(0, 253)} is disposable` });
    }
  }
  if (rules.maxLinks !== null && links > rules.maxLinks) {
    hits.push({ rule: 'too-many-links', detail: `${links} links (at most ${rules.maxLinks})` });
  }
  // Grouped by rule, in the order of RULE_WEIGHTS (stable: the order of the fields within a rule).
  return hits.length > 1 ? hits.sort((a, b) => RULE_ORDER.indexOf(a.rule) - RULE_ORDER.indexOf(b.rule)) : hits;
}

/**
 * Content rules (after the body): each hit adds its weight (`RULE_WEIGHTS`); a score at or above
 * `rules.threshold` flags the submission with every hit as a reason. Never blocks.
 */
export function createRulesLayer(): Omit<AfterBodyLayer, 'check'> & { check(input: SpamSubmission): LayerFinding } {
  return {
    name: 'rules',
    phase: 'after-body',
    check({ settings, fields }): LayerFinding {
      const { rules } = settings;
      if (
        !rules.blockedWords.length &&
        !rules.blockedDomains.length &&
        rules.maxLinks === null &&
        !rules.disposableEmails
      )
        return { verdict: 'pass' };
      const hits = contentHits(fields, rules);
      const score = hits.reduce((sum, h) => sum + RULE_WEIGHTS[h.rule], 0);
      if (score < rules.threshold) return { verdict: 'pass' };
      const reasons: SpamReason[] = hits.map((h) => ({
        layer: 'rules',
        rule: h.rule,
        detail: `${h.detail} (+${RULE_WEIGHTS[h.rule]}, score ${score} ≥ ${rules.threshold})`,
      }));
      return { verdict: 'flag', reasons };
    },
  };
}
