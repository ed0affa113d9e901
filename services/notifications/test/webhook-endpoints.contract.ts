import { randomUUID } from 'node:crypto';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { generateWebhookSecret } from '@formgate/kit/webhook-signing';
import { beforeAll, expect } from 'vitest';
import type { WebhookEndpoint, WebhookEndpointStore } from '../src/store/index.ts';

export interface WebhookEndpointStoreTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  create: () => Promise<WebhookEndpointStore>;
}

export const T0 = '2026-11-20T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

/** An enabled endpoint of a form of its own, at `T0` (shared with the adapters' own tests). */
export const endpoint = (over: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
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
  revision: 0,
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
      expect(await store.update(stranger, first.id, { enabled: false, updatedAt: at(20) }, first)).toBeNull();
      expect(await store.remove(stranger, first.id)).toBe(false);
      expect(await store.get({ orgId: first.orgId }, first.id)).toEqual(first);
    });

    it('updates the given fields only, and leaves out undefined ones', async () => {
      const e = endpoint();
      await store.create(e, { limit: 10 });
      const previousSecret = { secret: e.secret, expiresAt: at(86_400) };
      const secret = generateWebhookSecret();
      const updated = await store.update(
        { orgId: e.orgId },
        e.id,
        {
          enabled: false,
          url: undefined,
          secret,
          previousSecret,
          updatedAt: at(30),
        },
        e,
      );
      const expected = { ...e, enabled: false, secret, previousSecret, updatedAt: at(30), revision: 1 };
      expect(updated).toEqual(expected);
      expect(await store.get({ orgId: e.orgId }, e.id)).toEqual(expected);
    });

    it("records the service's disabling apart: a person's changes stay, a re-enabling ends it", async () => {
      const e = endpoint();
      const scope = { orgId: e.orgId };
      await store.create(e, { limit: 10 });
      const reasons = ['The endpoint answered 410 Gone', '5 deliveries in a row failed (last: 500)'];
      const claims = await Promise.all(reasons.map((reason) => store.disable(e, { reason, at: at(40) })));
      expect(claims.filter(Boolean)).toHaveLength(1);
      const reason = reasons[claims.indexOf(true)];
      const disabled = { ...e, enabled: false, disabledReason: reason, updatedAt: at(40) };
      expect(await store.get(scope, e.id)).toEqual(disabled);
      expect(await store.listByForm(scope, e.formId)).toEqual([disabled]);
      expect(await store.disable(e, { reason: 'again', at: at(45) })).toBe(false);

      // A person's change of the URL or secret neither loses the disabling nor is lost to it.
      const secret = generateWebhookSecret();
      const changes = { url: 'https://hooks.example/new', secret, updatedAt: at(50) };
      const changed = await store.update(scope, e.id, changes, e);
      expect(changed).toEqual({ ...disabled, ...changes, revision: 1 });

      // Re-enabled: the disabling was for the old `enabledAt`; a late one for it changes nothing.
      const reenabling = { enabled: true, enabledAt: at(60), updatedAt: at(60) };
      const reenabled = await store.update(scope, e.id, reenabling, { revision: 1 });
      const expected = { ...disabled, ...changes, ...reenabling, disabledReason: null, revision: 2 };
      expect(reenabled).toEqual(expected);
      expect(await store.disable({ ...e, enabledAt: at(30) }, { reason: 'stale', at: at(70) })).toBe(true);
      expect(await store.get(scope, e.id)).toEqual(expected);
      expect(await store.listByForm(scope, e.formId)).toEqual([expected]);

      // Disabled by a person: no reason, even when the service disables it as well.
      await store.update(scope, e.id, { enabled: false, updatedAt: at(80) }, expected);
      await store.disable({ ...e, enabledAt: at(60) }, { reason: 'late', at: at(90) });
      const byPerson = { ...expected, enabled: false, updatedAt: at(80), revision: 3 };
      expect(await store.get(scope, e.id)).toEqual(byPerson);
      expect(await store.remove(scope, e.id)).toBe(true);
      expect(await store.get(scope, e.id)).toBeNull();
      expect(await store.listByForm(scope, e.formId)).toEqual([]);
    });

    it('reads an endpoint the service disabled before disablings were records of their own as disabled', async () => {
      const legacy = endpoint({ enabled: false, disabledReason: 'The endpoint answered 410 Gone' });
      const scope = { orgId: legacy.orgId };
      await store.create(legacy, { limit: 10 });
      expect(await store.get(scope, legacy.id)).toEqual(legacy);
      const changed = await store.update(scope, legacy.id, { events: ['submission.spam'], updatedAt: at(10) }, legacy);
      expect(changed).toEqual({ ...legacy, events: ['submission.spam'], updatedAt: at(10), revision: 1 });
      const reenabling = { enabled: true, enabledAt: at(20), updatedAt: at(20) };
      const reenabled = await store.update(scope, legacy.id, reenabling, { revision: 1 });
      expect(reenabled).toMatchObject({ enabled: true, disabledReason: null, enabledAt: at(20), revision: 2 });
    });

    it('stores exactly one of concurrent changes based on one revision; the others conflict', async () => {
      const e = endpoint();
      const scope = { orgId: e.orgId };
      await store.create(e, { limit: 10 });
      const secrets = Array.from({ length: 6 }, () => generateWebhookSecret());
      const results = await Promise.all(
        secrets.map((secret, i) =>
          store.update(
            scope,
            e.id,
            { secret, previousSecret: { secret: e.secret, expiresAt: at(i) }, updatedAt: at(i) },
            e,
          ),
        ),
      );
      const won = results.filter((r) => r !== 'conflict');
      expect(won).toHaveLength(1);
      expect(results.filter((r) => r === 'conflict')).toHaveLength(5);
      const stored = await store.get(scope, e.id);
      expect(stored).toEqual(won[0]);
      expect(stored).toMatchObject({ secret: secrets[results.indexOf(won[0] ?? null)], revision: 1 });
      expect(await store.update(scope, e.id, { url: 'https://hooks.example/late', updatedAt: at(9) }, e)).toBe(
        'conflict',
      );
      expect(
        await store.update(scope, e.id, { url: 'https://hooks.example/next', updatedAt: at(9) }, { revision: 1 }),
      ).toMatchObject({ url: 'https://hooks.example/next', secret: stored?.secret, revision: 2 });
      expect(await store.listByForm(scope, e.formId)).toEqual([await store.get(scope, e.id)]);
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
