import { hmacSha256 } from '@formgate/kit';
import { describe, expect, it } from 'vitest';
import { createTimeStamps, createTimeTrapLayer, TIME_TRAP_FIELD } from '../src/spam/time-trap.ts';
import { form, NOW, SECRET, spamSubmission } from './spam-fixtures.ts';

const stamps = createTimeStamps(SECRET);
const layer = createTimeTrapLayer(stamps);
const at = (ms: number) => new Date(NOW.getTime() + ms);
const check = (token: string | undefined, now: Date, timeTrapSeconds = 3, f = form()) =>
  layer.check(
    spamSubmission({
      form: f,
      now,
      settings: { timeTrapSeconds },
      reserved: token === undefined ? {} : { [TIME_TRAP_FIELD]: token },
    }),
  );

describe('time-trap layer', () => {
  const token = stamps.issue(form(), NOW);

  it('passes a timestamp older than timeTrapSeconds', () => {
    expect(check(token, at(3_000))).toEqual({ verdict: 'pass' });
    expect(check(token, at(60 * 60 * 1000))).toEqual({ verdict: 'pass' });
  });

  it('flags too-fast, with the elapsed time', () => {
    const found = check(token, at(1_200));
    expect(found).toMatchObject({ verdict: 'flag', reasons: [{ layer: 'time-trap', rule: 'too-fast' }] });
    if (found.verdict === 'flag') expect(found.reasons[0]?.detail).toContain('1.2 s');
  });

  it('flags missing (absent or blank)', () => {
    expect(check(undefined, at(10_000))).toMatchObject({ verdict: 'flag', reasons: [{ rule: 'missing' }] });
    expect(check('  ', at(10_000))).toMatchObject({ verdict: 'flag', reasons: [{ rule: 'missing' }] });
  });

  it('flags forged: another secret, altered, another form, junk, from the future', () => {
    const other = createTimeStamps('o'.repeat(40)).issue(form(), NOW);
    const [payload, mac] = token.split('.');
    const altered = `${(NOW.getTime() - 99_999).toString(36)}.${mac}`;
    const otherForm = stamps.issue({ ...form(), id: 'form-2' }, NOW);
    for (const bad of [other, altered, otherForm, 'junk', `${payload}.`, `${payload}.${mac}x`, 'x'.repeat(1000)]) {
      expect(check(bad, at(10_000))).toMatchObject({ verdict: 'flag', reasons: [{ rule: 'forged' }] });
    }
    expect(check(token, at(-60_000))).toMatchObject({ verdict: 'flag', reasons: [{ rule: 'forged' }] });
  });

  it('accepts only the canonical spelling of a MAC (a last character differing in its padding bits is forged)', () => {
    const [payload, mac = ''] = token.split('.');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(mac.slice(-1));
    const sameBytes = `${payload}.${mac.slice(0, -1)}${alphabet[last + 1]}`;
    expect(Buffer.from(sameBytes.split('.')[1] ?? '', 'base64url')).toEqual(Buffer.from(mac, 'base64url'));
    expect(check(sameBytes, at(10_000))).toMatchObject({ verdict: 'flag', reasons: [{ rule: 'forged' }] });
    expect(check(token, at(10_000))).toEqual({ verdict: 'pass' });
  });

  it('issues one stamp per 100 ms window, and reads the age from the window’s start', () => {
    expect(stamps.issue(form(), at(99))).toBe(token);
    expect(stamps.issue(form(), at(100))).not.toBe(token);
    const late = stamps.issue(form(), at(2_099));
    expect(late.split('.')[0]).toBe((NOW.getTime() + 2_000).toString(36));
    // Rendered at +2.099 s, sent at +4.999 s (2.9 s later): read as 2.999 s, under a 3 s trap.
    expect(check(late, at(4_999))).toMatchObject({ verdict: 'flag', reasons: [{ rule: 'too-fast' }] });
    expect(check(late, at(5_000))).toEqual({ verdict: 'pass' });
  });

  it('accepts only the canonical spelling of the time (no upper case, sign or leading zero)', () => {
    // Each also fails on its MAC, which is over the time as sent: this fails if the time were normalised first.
    const [payload = '', mac] = token.split('.');
    for (const time of [payload.toUpperCase(), `0${payload}`, `+${payload}`, `-${payload}`, `${payload} `]) {
      expect(check(`${time}.${mac}`, at(10_000))).toMatchObject({ verdict: 'flag', reasons: [{ rule: 'forged' }] });
    }
  });

  it('still passes a stamp issued at any millisecond (by the code before ADR 60) within its 24 h', () => {
    const issued = (NOW.getTime() + 1_234).toString(36);
    const mac = hmacSha256(Buffer.from(SECRET))(`time-trap.${form().id}.${issued}`).subarray(0, 16);
    const old = `${issued}.${mac.toString('base64url')}`;
    expect(check(old, at(1_234 + 3_000))).toEqual({ verdict: 'pass' });
    expect(check(old, at(1_234 + 2_999))).toMatchObject({ verdict: 'flag', reasons: [{ rule: 'too-fast' }] });
  });

  it('remembers the MAC of a pair it issued or saw genuine, never of a stamp that failed', () => {
    const fresh = createTimeStamps(SECRET, 3);
    const mine = fresh.issue(form(), NOW);
    expect(fresh.rememberedMacs).toBe(1);
    // Made-up pairs (well formed, wrong MAC): each one computed, none kept, nothing evicted.
    for (let i = 1; i <= 10; i++) {
      expect(fresh.open(form(), `${(NOW.getTime() + i).toString(36)}.${'A'.repeat(22)}`)).toBeUndefined();
    }
    expect(fresh.rememberedMacs).toBe(1);
    expect(fresh.open(form(), mine)).toBe(NOW.getTime());
    // A genuine stamp another instance issued: kept once it passed.
    expect(fresh.open(form(), stamps.issue(form(), at(500)))).toBe(NOW.getTime() + 500);
    expect(fresh.rememberedMacs).toBe(2);
  });

  it('a remembered (form, window) pair passes only its own MAC', () => {
    expect(check(token, at(10_000))).toEqual({ verdict: 'pass' });
    const [payload, mac = ''] = token.split('.');
    for (let i = 0; i < mac.length; i++) {
      const flipped = `${mac.slice(0, i)}${mac[i] === 'A' ? 'B' : 'A'}${mac.slice(i + 1)}`;
      expect(check(`${payload}.${flipped}`, at(10_000))).toMatchObject({
        verdict: 'flag',
        reasons: [{ rule: 'forged' }],
      });
    }
    expect(check(token, at(10_000))).toEqual({ verdict: 'pass' });
  });

  it('flags expired after 24 h', () => {
    expect(check(token, at(24 * 3600 * 1000 + 1))).toMatchObject({ verdict: 'flag', reasons: [{ rule: 'expired' }] });
  });

  it('does nothing when timeTrapSeconds is 0', () => {
    expect(check(undefined, at(0), 0)).toEqual({ verdict: 'pass' });
  });

  it('during a rotation, passes a stamp of the previous secret and issues with the new one (ADR 50)', () => {
    const NEW = 'n'.repeat(40);
    const rotated = createTimeTrapLayer(createTimeStamps({ current: NEW, previous: SECRET }));
    const input = (t: string) =>
      spamSubmission({
        form: form(),
        now: at(10_000),
        settings: { timeTrapSeconds: 3 },
        reserved: { [TIME_TRAP_FIELD]: t },
      });
    expect(rotated.check(input(token))).toEqual({ verdict: 'pass' });
    // The same pair remembered with the new secret's MAC (issued first): the previous one's stamp still passes.
    const both = createTimeStamps({ current: NEW, previous: SECRET });
    const issuedFirst = both.issue(form(), NOW);
    expect(both.rememberedMacs).toBe(1);
    expect(both.open(form(), token)).toBe(NOW.getTime());
    expect(both.open(form(), issuedFirst)).toBe(NOW.getTime());
    const issued = createTimeStamps({ current: NEW, previous: SECRET }).issue(form(), NOW);
    expect(issued).toBe(createTimeStamps(NEW).issue(form(), NOW));
    // The previous secret retired: its stamps are forged.
    expect(createTimeTrapLayer(createTimeStamps(NEW)).check(input(token))).toMatchObject({
      verdict: 'flag',
      reasons: [{ rule: 'forged' }],
    });
  });

  it('refuses a short secret', () => {
    expect(() => createTimeStamps('short')).toThrow(/32 characters/);
  });
});
