import { generateWebhookSecret, isWebhookSecret, signWebhook } from '@formgate/kit/webhook-signing';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { expectedSignature, v1Signatures, verifiesWith } from './standard-webhooks-verifier.ts';

const body = JSON.stringify({ type: 'submission.created', data: { fields: [{ name: 'msg', value: 'héllo ✓' }] } });
const at = new Date('2026-03-01T12:00:00.750Z');

describe('webhook signing (Standard Webhooks)', () => {
  it('generates whsec_ secrets of 32 random bytes, all different', () => {
    const secrets = Array.from({ length: 50 }, generateWebhookSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
      expect(isWebhookSecret(secret)).toBe(true);
    }
    expect(new Set(secrets).size).toBe(50);
  });

  it('recognises only whsec_ + base64 of 24 to 64 bytes as a secret', () => {
    expect(isWebhookSecret(`whsec_${Buffer.alloc(24, 7).toString('base64')}`)).toBe(true);
    expect(isWebhookSecret(`whsec_${Buffer.alloc(23, 7).toString('base64')}`)).toBe(false);
    expect(isWebhookSecret(`whsec_${Buffer.alloc(65, 7).toString('base64')}`)).toBe(false);
    expect(isWebhookSecret(Buffer.alloc(32, 7).toString('base64'))).toBe(false);
    expect(isWebhookSecret('whsec_not base64!!')).toBe(false);
  });

  it('sends webhook-id, the timestamp in whole seconds and a v1 signature an independent verifier accepts', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook({ msgId: 'dlv_01J9ZQ', timestamp: at, body, secret });
    expect(headers['webhook-id']).toBe('dlv_01J9ZQ');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
    expect(headers['webhook-signature']).toBe(
      `v1,${expectedSignature(secret, 'dlv_01J9ZQ', headers['webhook-timestamp'], body)}`,
    );
    expect(verifiesWith(secret, headers, body)).toBe(true);
  });

  it('fails verification for another secret, a changed body, id or timestamp', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook({ msgId: 'dlv_1', timestamp: at, body, secret });
    expect(verifiesWith(generateWebhookSecret(), headers, body)).toBe(false);
    expect(verifiesWith(secret, headers, `${body} `)).toBe(false);
    expect(verifiesWith(secret, { ...headers, 'webhook-id': 'dlv_2' }, body)).toBe(false);
    expect(verifiesWith(secret, { ...headers, 'webhook-timestamp': '1772366401' }, body)).toBe(false);
  });

  it('signs with both secrets while the previous one is still valid, and only the new one after', () => {
    const secret = generateWebhookSecret();
    const old = generateWebhookSecret();
    const during = signWebhook({
      msgId: 'dlv_1',
      timestamp: at,
      body,
      secret,
      previous: { secret: old, expiresAt: new Date(at.getTime() + 1000) },
    });
    const ts = during['webhook-timestamp'];
    expect(v1Signatures(during['webhook-signature'])).toEqual([
      expectedSignature(secret, 'dlv_1', ts, body),
      expectedSignature(old, 'dlv_1', ts, body),
    ]);
    expect(verifiesWith(secret, during, body)).toBe(true);
    expect(verifiesWith(old, during, body)).toBe(true);

    const after = signWebhook({
      msgId: 'dlv_1',
      timestamp: at,
      body,
      secret,
      previous: { secret: old, expiresAt: at.toISOString() },
    });
    expect(v1Signatures(after['webhook-signature'])).toHaveLength(1);
    expect(verifiesWith(old, after, body)).toBe(false);
    expect(verifiesWith(secret, after, body)).toBe(true);
  });

  it('agrees with the reference package verifying a fresh message', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook({ msgId: 'dlv_ref', timestamp: new Date(), body, secret });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('refuses a malformed secret or webhook-id rather than sending an unverifiable signature', () => {
    expect(() => signWebhook({ msgId: 'dlv_1', timestamp: at, body, secret: 'whsec_' })).toThrow();
    expect(() => signWebhook({ msgId: 'a.b', timestamp: at, body, secret: generateWebhookSecret() })).toThrow();
    expect(() => signWebhook({ msgId: '', timestamp: at, body, secret: generateWebhookSecret() })).toThrow();
  });
});
