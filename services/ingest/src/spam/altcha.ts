import { hkdfSync } from 'node:crypto';
import { AltchaChallengeParametersSchema, AltchaChallengeSchema } from '@formgate/contracts';
import { boundedMemo, type Clock } from '@formgate/kit';
import { type Challenge, createChallenge, randomInt, verifySolution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { z } from 'zod';
import type { UsedSolutions } from './used-solutions.ts';

/**
 * Self-hosted ALTCHA proof-of-work (issue 14), with `altcha-lib`'s v2 protocol (the ALTCHA widget v3):
 * `GET /f/{key}/altcha` hands out a challenge signed with a key of that form (HKDF of the instance's
 * `INGEST_SECRET` and the form id, so a challenge of one form never passes on another, and every instance with the
 * same secret verifies what another issued); the widget solves it and posts the solution in the `altcha` field.
 * A solution is accepted once (`UsedSolutions`, keyed by the challenge's signature) and before its expiry.
 */
export interface AltchaDifficulty {
  /** PBKDF2/SHA-256 iterations per attempt. */
  cost: number;
  /** The secret counter the client must find is drawn from [minCounter, maxCounter]: the expected work is bounded. */
  minCounter: number;
  maxCounter: number;
}

/** About 0.5–2 s in a current browser; creating a challenge costs the server one derivation (≈ 0.2 ms). */
export const DEFAULT_ALTCHA_DIFFICULTY: AltchaDifficulty = { cost: 1_000, minCounter: 2_000, maxCounter: 8_000 };
export const ALTCHA_ALGORITHM = 'PBKDF2/SHA-256';
export const ALTCHA_EXPIRY_SECONDS = 20 * 60;
/** A payload is a few hundred bytes; anything much longer is not one. */
const MAX_PAYLOAD_LENGTH = 4_096;

export type AltchaOutcome = { ok: true } | { ok: false; rule: 'failed' | 'expired' | 'replayed'; detail: string };

export interface Altcha {
  /** A fresh challenge for this form (JSON for the widget's `challengeurl`). */
  challenge(formId: string): Promise<Challenge>;
  /** Checks the `altcha` field's value (base64 JSON `{challenge, solution}`) for this form, claiming it once. */
  verify(formId: string, payload: string): Promise<AltchaOutcome>;
}

/** The two HMAC secrets of a form's challenges (hex), derived from the instance secret. */
export function altchaKeys(instanceSecret: string, formId: string) {
  const derive = (purpose: string) =>
    Buffer.from(hkdfSync('sha256', instanceSecret, 'formgate-altcha-v2', `${purpose}:${formId}`, 32)).toString('hex');
  return { hmacSignatureSecret: derive('challenge'), hmacKeySignatureSecret: derive('derived-key') };
}

const PayloadSchema = z.object({
  challenge: AltchaChallengeSchema.extend({
    parameters: AltchaChallengeParametersSchema.transform((p) => p as Challenge['parameters']),
  }),
  solution: z.object({ counter: z.number(), derivedKey: z.string().max(256), time: z.number().optional() }),
});

function decode(payload: string) {
  if (payload.length > MAX_PAYLOAD_LENGTH) return null;
  try {
    const text = /^\s*\{/.test(payload) ? payload : Buffer.from(payload, 'base64').toString('utf8');
    const parsed = PayloadSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function createAltcha(deps: {
  /** The instance secret (`INGEST_SECRET`), shared by every ingest instance of a deployment. */
  secret: string;
  /** During a rotation (ADR 50): the replaced `INGEST_SECRET`, whose challenges still verify (never issued). */
  previousSecret?: string | undefined;
  used: UsedSolutions;
  clock: Clock;
  difficulty?: AltchaDifficulty;
}): Altcha {
  const difficulty = deps.difficulty ?? DEFAULT_ALTCHA_DIFFICULTY;
  // Deriving the keys is cheap, but a form's keys never change: keep the last few thousand.
  const keysOf = boundedMemo(5_000, (formId) => altchaKeys(deps.secret, formId));
  const previousSecret = deps.previousSecret === deps.secret ? undefined : deps.previousSecret;
  const fail = (rule: 'failed' | 'expired' | 'replayed', detail: string): AltchaOutcome => ({
    ok: false,
    rule,
    detail,
  });

  return {
    challenge(formId) {
      const now = deps.clock.now().getTime();
      return createChallenge({
        algorithm: ALTCHA_ALGORITHM,
        cost: difficulty.cost,
        counter: randomInt(difficulty.maxCounter, difficulty.minCounter),
        deriveKey,
        expiresAt: Math.floor(now / 1000) + ALTCHA_EXPIRY_SECONDS,
        ...keysOf(formId),
      });
    },

    async verify(formId, raw) {
      const payload = decode(raw);
      if (!payload) return fail('failed', 'the ALTCHA payload is not a solution');
      const { parameters } = payload.challenge;
      if (parameters.algorithm !== ALTCHA_ALGORITHM) return fail('failed', 'the ALTCHA challenge was not issued here');
      const expiresAt = parameters.expiresAt;
      const now = deps.clock.now();
      let result: Awaited<ReturnType<typeof verifySolution>>;
      try {
        const attempt = (k: ReturnType<typeof altchaKeys>) =>
          verifySolution({ challenge: payload.challenge, solution: payload.solution, deriveKey, ...k });
        result = await attempt(keysOf(formId));
        // A challenge issued before a rotation: signed with the previous secret's keys.
        if (result.invalidSignature && previousSecret) result = await attempt(altchaKeys(previousSecret, formId));
      } catch {
        return fail('failed', 'the ALTCHA payload is not a solution');
      }
      // The signature covers expiresAt: past the checks above it is the one this instance wrote.
      if (result.invalidSignature) return fail('failed', 'the ALTCHA challenge was not issued for this form');
      if (result.expired || expiresAt === undefined || expiresAt * 1000 <= now.getTime()) {
        return fail('expired', 'the ALTCHA challenge expired');
      }
      if (!result.verified) return fail('failed', 'the ALTCHA solution is wrong');
      if (!deps.used.claim(`altcha:${payload.challenge.signature}`, new Date(expiresAt * 1000))) {
        return fail('replayed', 'the ALTCHA solution was already used');
      }
      return { ok: true };
    },
  };
}
