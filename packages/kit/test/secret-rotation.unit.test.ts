import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { previousSecretEnv } from '../src/config.ts';
import { createFileLinks } from '../src/file-links.ts';
import { createIdentityCodec, type Identity } from '../src/identity.ts';
import { ensureSecretFile, readPreviousSecret, retirePreviousSecret, rotateSecretFile } from '../src/secret-files.ts';
import { createSignedTokens } from '../src/signed-tokens.ts';

const OLD = 'o'.repeat(40);
const NEW = 'n'.repeat(40);
const OTHER = 'x'.repeat(40);
const NOW = Date.UTC(2026, 0, 1);
const grant = { orgId: 'org_1', formId: 'frm_1', submissionId: 'sub_1', blobKey: 'b/1' };

describe('signing secrets with a previous value (ADR 50)', () => {
  it('verifies what the previous secret signed, signs with the current one only', () => {
    const old = createSignedTokens(OLD, 'p');
    const rotated = createSignedTokens({ current: NEW, previous: OLD }, 'p');
    const fresh = createSignedTokens(NEW, 'p');
    const before = old.sign({ a: 1 });
    expect(rotated.open(before, 1_000)).toEqual({ a: 1 });
    // Signed with the new secret: the new-only verifier accepts it, the old-only one does not.
    const after = rotated.sign({ a: 2 });
    expect(fresh.open(after, 1_000)).toEqual({ a: 2 });
    expect(old.open(after, 1_000)).toBeUndefined();
    // Once the previous value is removed, what it signed is refused; a third secret never passed.
    expect(fresh.open(before, 1_000)).toBeUndefined();
    expect(rotated.open(createSignedTokens(OTHER, 'p').sign({ a: 3 }), 1_000)).toBeUndefined();
    // The purpose still separates features under the previous secret.
    expect(rotated.open(createSignedTokens(OLD, 'q').sign({ a: 1 }), 1_000)).toBeUndefined();
  });

  it('refuses a short previous secret like a short current one', () => {
    expect(() => createSignedTokens({ current: NEW, previous: 'short' }, 'p', 'file link')).toThrow(
      /previous file link secret must be at least 32/,
    );
  });

  it('<NAME>_PREVIOUS: unset or empty means none; a short value is refused like the secret itself', () => {
    expect(previousSecretEnv.parse(undefined)).toBeUndefined();
    expect(previousSecretEnv.parse('')).toBeUndefined();
    expect(previousSecretEnv.parse(OLD)).toBe(OLD);
    expect(previousSecretEnv.safeParse('short').success).toBe(false);
  });

  it('file links: an old link works during the window, not after', () => {
    const { token } = createFileLinks(OLD).sign(grant, NOW, 3_600);
    expect(createFileLinks({ current: NEW, previous: OLD }).verify(token, NOW)).toMatchObject(grant);
    expect(createFileLinks(NEW).verify(token, NOW)).toBeNull();
  });

  it('identity tokens: verified with the previous secret during a rotation, refused after', async () => {
    const identity: Identity = { userId: 'u', email: null, orgId: 'o', roles: ['owner'], via: 'session' };
    const token = await createIdentityCodec(OLD).sign(identity);
    const rotated = createIdentityCodec({ current: NEW, previous: OLD });
    await expect(rotated.verify(token)).resolves.toEqual(identity);
    await expect(createIdentityCodec(NEW).verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(createIdentityCodec(OLD).verify(await rotated.sign(identity))).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
  });
});

describe('embedded secret files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fg-secrets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rotates: the current value becomes the previous one, a new one is current (0600); retire drops it', () => {
    const first = ensureSecretFile(dir, 'ingest-secret');
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(ensureSecretFile(dir, 'ingest-secret')).toBe(first);
    expect(readPreviousSecret(dir, 'ingest-secret')).toBeUndefined();

    expect(rotateSecretFile(dir, 'ingest-secret')).toEqual({ keptPrevious: true });
    const second = ensureSecretFile(dir, 'ingest-secret');
    expect(second).not.toBe(first);
    expect(readPreviousSecret(dir, 'ingest-secret')).toBe(first);
    for (const f of ['ingest-secret', 'ingest-secret.previous'])
      expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);

    // A second rotation keeps only the value it replaced.
    rotateSecretFile(dir, 'ingest-secret');
    expect(readPreviousSecret(dir, 'ingest-secret')).toBe(second);
    expect(readFileSync(join(dir, 'ingest-secret'), 'utf8').trim()).not.toBe(second);

    expect(retirePreviousSecret(dir, 'ingest-secret')).toBe(true);
    expect(readPreviousSecret(dir, 'ingest-secret')).toBeUndefined();
    expect(retirePreviousSecret(dir, 'ingest-secret')).toBe(false);
  });

  it('a secret never generated gets a value and keeps no previous one', () => {
    expect(rotateSecretFile(dir, 'operator-token')).toEqual({ keptPrevious: false });
    expect(ensureSecretFile(dir, 'operator-token').length).toBeGreaterThanOrEqual(32);
    expect(readPreviousSecret(dir, 'operator-token')).toBeUndefined();
  });
});
