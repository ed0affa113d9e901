import { randomBytes } from 'node:crypto';
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** Id generation, passed in by the composition root so tests can pin it. */
export interface Ids {
  /** A new time-ordered unique id. */
  next(): string;
  /** The same id for the same inputs, always (used for client idempotency keys). */
  derived(...parts: string[]): string;
  /** A random url-safe token of `bytes` bytes of entropy. */
  token(bytes: number): string;
}

const NAMESPACE = '9f7c1c52-8f0e-4c41-9d5c-5b0e8b3f6a10';

export const systemIds: Ids = {
  next: () => uuidv7(),
  derived: (...parts) => uuidv5(parts.join('\u0000'), NAMESPACE),
  token: (bytes) => randomBytes(bytes).toString('base64url'),
};
