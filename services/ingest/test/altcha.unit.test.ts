import { type Challenge, solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { describe, expect, it } from 'vitest';
import {
  ALTCHA_EXPIRY_SECONDS,
  type AltchaDifficulty,
  createAltcha,
  DEFAULT_ALTCHA_DIFFICULTY,
} from '../src/spam/altcha.ts';
import { createLocalUsedSolutions } from '../src/spam/used-solutions.ts';

const SECRET = 's'.repeat(40);
/** Cheap enough to solve many times in a test; the default is measured separately. */
const EASY: AltchaDifficulty = { cost: 10, minCounter: 10, maxCounter: 200 };

function setup(difficulty: AltchaDifficulty = EASY) {
  let now = new Date();
  const clock = { now: () => now };
  const used = createLocalUsedSolutions(clock.now);
  const altcha = createAltcha({ secret: SECRET, used, clock, difficulty });
  return {
    altcha,
    used,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

/** What the ALTCHA widget posts in the `altcha` field: base64 of `{challenge, solution}`. */
async function solve(challenge: Challenge): Promise<string> {
  const solution = await solveChallenge({ challenge, deriveKey, timeout: 30_000 });
  if (!solution) throw new Error('not solved');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

describe('ALTCHA challenges', () => {
  it('a challenge is signed, expires in 20 minutes and uses the bounded difficulty', async () => {
    const { altcha } = setup();
    const c = await altcha.challenge('form-1');
    expect(c.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(c.parameters.algorithm).toBe('PBKDF2/SHA-256');
    expect(c.parameters.cost).toBe(EASY.cost);
    expect(c.parameters.expiresAt).toBeGreaterThan(Date.now() / 1000 + ALTCHA_EXPIRY_SECONDS - 5);
    expect(c.parameters.expiresAt).toBeLessThanOrEqual(Date.now() / 1000 + ALTCHA_EXPIRY_SECONDS + 1);
  });

  it('a solved challenge verifies once; the replay is refused', async () => {
    const { altcha } = setup();
    const payload = await solve(await altcha.challenge('form-1'));
    expect(await altcha.verify('form-1', payload)).toEqual({ ok: true });
    expect(await altcha.verify('form-1', payload)).toEqual({
      ok: false,
      rule: 'replayed',
      detail: 'the ALTCHA solution was already used',
    });
  });

  it('during a rotation, a challenge issued with the previous secret verifies; after it, it fails (ADR 50)', async () => {
    const clock = { now: () => new Date() };
    const used = createLocalUsedSolutions(clock.now);
    const NEW = 'n'.repeat(40);
    const payload = await solve(await setup().altcha.challenge('form-1'));
    const retired = createAltcha({ secret: NEW, used, clock, difficulty: EASY });
    expect(await retired.verify('form-1', payload)).toMatchObject({ ok: false, rule: 'failed' });
    const rotated = createAltcha({ secret: NEW, previousSecret: SECRET, used, clock, difficulty: EASY });
    expect(await rotated.verify('form-1', payload)).toEqual({ ok: true });
  });

  it("another form's challenge fails (the key is per form)", async () => {
    const { altcha } = setup();
    const payload = await solve(await altcha.challenge('form-1'));
    expect(await altcha.verify('form-2', payload)).toMatchObject({ ok: false, rule: 'failed' });
    // …and was not claimed: the right form still takes it.
    expect(await altcha.verify('form-1', payload)).toEqual({ ok: true });
  });

  it('another instance with the same secret verifies it (distributed mode); another secret does not', async () => {
    const a = setup();
    const b = setup();
    const other = createAltcha({
      secret: 'o'.repeat(40),
      used: createLocalUsedSolutions(),
      clock: { now: () => new Date() },
      difficulty: EASY,
    });
    const payload = await solve(await a.altcha.challenge('form-1'));
    expect(await other.verify('form-1', payload)).toMatchObject({ ok: false, rule: 'failed' });
    expect(await b.altcha.verify('form-1', payload)).toEqual({ ok: true });
  });

  it('an expired challenge fails as expired', async () => {
    const { altcha, advance } = setup();
    const payload = await solve(await altcha.challenge('form-1'));
    advance(ALTCHA_EXPIRY_SECONDS * 1000 + 1_000);
    expect(await altcha.verify('form-1', payload)).toEqual({
      ok: false,
      rule: 'expired',
      detail: 'the ALTCHA challenge expired',
    });
  });

  it('a tampered challenge (easier parameters, a later expiry) or a wrong solution fails', async () => {
    const { altcha } = setup();
    const challenge = await altcha.challenge('form-1');
    const solution = await solveChallenge({ challenge, deriveKey });
    const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');
    const later = { ...challenge, parameters: { ...challenge.parameters, expiresAt: 9_999_999_999 } };
    expect(await altcha.verify('form-1', encode({ challenge: later, solution }))).toMatchObject({
      ok: false,
      rule: 'failed',
    });
    const wrong = { ...solution, derivedKey: '00'.repeat(32) };
    expect(await altcha.verify('form-1', encode({ challenge, solution: wrong }))).toEqual({
      ok: false,
      rule: 'failed',
      detail: 'the ALTCHA solution is wrong',
    });
  });

  it.each([
    ['not base64 JSON', '%%%'],
    ['JSON of another shape', Buffer.from('{"a":1}').toString('base64')],
    ['too long', 'A'.repeat(5_000)],
  ])('garbage (%s) fails without throwing', async (_name, payload) => {
    const { altcha } = setup();
    expect(await altcha.verify('form-1', payload)).toMatchObject({ ok: false, rule: 'failed' });
  });

  it('the default difficulty is solvable in a few seconds at most (the widget does it in a browser)', async () => {
    const { altcha } = setup(DEFAULT_ALTCHA_DIFFICULTY);
    const started = Date.now();
    const payload = await solve(await altcha.challenge('form-1'));
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await altcha.verify('form-1', payload)).toEqual({ ok: true });
  }, 30_000);
});
