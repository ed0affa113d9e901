import { randomUUID } from 'node:crypto';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { beforeAll, expect } from 'vitest';
import type { WebhookEndpoint, WebhookEndpointStore } from '../src/endpoints/webhook-endpoint-store.ts';
import { generateWebhookSecret } from '../src/webhooks/index.ts';

export interface WebhookEndpointStoreTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  create: () => Promise<WebhookEndpointStore>;
}

const T0 = '2026-11-20T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

const endpoint = (over: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id: randomUUID(),
  orgId: `org_${randomUUID()}`,
  formId: `form_${randomUUID()}`,
  url: 'https://hooks.example/in?x=<script>',
  kind: 'standard',
  events: ['submission.created'],
  enabled: true,
  disabledReason: null,
  enabledAt: T0,
  secret: generateWebhookSecret(),
  previousSecret: null,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

/** The guarantees of `WebhookEndpointStore` (see its JSDoc), checked against one adapter. */
export function runWebhookEndpointStoreContract(target: WebhookEndpointStoreTarget) {
  describeContract(`WebhookEndpointStore contract: ${target.name}`, target.skip, (it) => {
    let store: WebhookEndpointStore;
    beforeAll(async () => {
      store = await target.create();
    });

    it('stores endpoints per form, listed oldest first, seen only by their organization', async () => {
      const first = endpoint({ createdAt: at(10) });
      const second = endpoint({ orgId: first.orgId, formId: first.formId, createdAt: at(5), kind: 'slack' });
      const otherForm = endpoint({ orgId: first.orgId });
      for (const e of [first, second, otherForm]) expect(await store.create(e, { limit: 10 })).toBe('created');
      expect(await store.listByForm({ orgId: first.orgId }, first.formId)).toEqual([second, first]);
      expect(await store.get({ orgId: first.orgId }, first.id)).toEqual(first);
      const stranger = { orgId: `org_${randomUUID()}` };
      expect(await store.get(stranger, first.id)).toBeNull();
      expect(await store.listByForm(stranger, first.formId)).toEqual([]);
      expect(await store.update(stranger, first.id, { enabled: false, updatedAt: at(20) })).toBeNull();
      expect(await store.remove(stranger, first.id)).toBe(false);
      expect(await store.get({ orgId: first.orgId }, first.id)).toEqual(first);
    });

    it('updates the given fields only, and leaves out undefined ones', async () => {
      const e = endpoint();
      await store.create(e, { limit: 10 });
      const previousSecret = { secret: e.secret, expiresAt: at(86_400) };
      const secret = generateWebhookSecret();
      const updated = await store.update({ orgId: e.orgId }, e.id, {
        enabled: false,
        disabledReason: 'The endpoint answered 410 Gone',
        url: undefined,
        secret,
        previousSecret,
        updatedAt: at(30),
      });
      const expected = {
        ...e,
        enabled: false,
        disabledReason: 'The endpoint answered 410 Gone',
        secret,
        previousSecret,
        updatedAt: at(30),
      };
      expect(updated).toEqual(expected);
      expect(await store.get({ orgId: e.orgId }, e.id)).toEqual(expected);
    });

    it('keeps the per-form limit however many create at once, and a removal frees a place', async () => {
      const base = endpoint();
      const many = Array.from({ length: 8 }, (_, i) =>
        endpoint({ orgId: base.orgId, formId: base.formId, createdAt: at(i) }),
      );
      const results = await Promise.all(many.map((e) => store.create(e, { limit: 3 })));
      expect(results.filter((r) => r === 'created')).toHaveLength(3);
      expect(results.filter((r) => r === 'limit-reached')).toHaveLength(5);
      const stored = await store.listByForm({ orgId: base.orgId }, base.formId);
      expect(stored).toHaveLength(3);
      expect(await store.create(endpoint({ orgId: base.orgId, formId: base.formId }), { limit: 3 })).toBe(
        'limit-reached',
      );
      expect(await store.remove({ orgId: base.orgId }, stored[0]?.id ?? '')).toBe(true);
      expect(await store.remove({ orgId: base.orgId }, stored[0]?.id ?? '')).toBe(false);
      expect(await store.create(endpoint({ orgId: base.orgId, formId: base.formId }), { limit: 3 })).toBe('created');
      expect(await store.listByForm({ orgId: base.orgId }, base.formId)).toHaveLength(3);
    });

    it('answers true to exactly one of many concurrent claims of a notice', async () => {
      const key = `disabled:${randomUUID()}`;
      const results = await Promise.all(Array.from({ length: 8 }, () => store.claimNotice(key)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.claimNotice(key)).toBe(false);
      expect(await store.claimNotice(`disabled:${randomUUID()}`)).toBe(true);
    });
  });
}
