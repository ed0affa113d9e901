import { generateWebhookSecret } from '@formgate/kit/webhook-signing';
import { useTestMongo } from '@formgate/store/testing';
import { expect, it } from 'vitest';
import { disablingKey, type WebhookEndpoint } from '../src/store/index.ts';
import { createMongoWebhookEndpointStore } from '../src/store/mongo/index.ts';
import { migratedMongo } from './notifications-db.ts';
import { endpoint, runWebhookEndpointStoreContract, T0 } from './webhook-endpoints.contract.ts';

// biome-ignore lint/correctness/useHookAtTopLevel: a vitest lifecycle helper, not a React hook (react is a dependency here)
const mongo = useTestMongo();

runWebhookEndpointStoreContract({
  name: 'mongo',
  create: async () => createMongoWebhookEndpointStore(await migratedMongo(mongo())),
});

const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

// FerretDB 1.24 writes the whole document back on every update: a disabling written on the endpoint's document put
// back the URL or secret a person had just changed. The service's disablings are insert-only records now.
it("loses none of a person's URL changes, secret rotations and re-enablings to disablings racing them", async () => {
  const store = createMongoWebhookEndpointStore(await migratedMongo(mongo()));
  const e = endpoint();
  const scope = { orgId: e.orgId };
  await store.create(e, { limit: 10 });
  const recorded = new Set<string>();
  let done = false;
  // As `afterFinal` on other instances, as fast as it can: read, then disable the endpoint as it read it.
  const disabler = (async () => {
    let n = 0;
    while (!done) {
      const seen = await store.get(scope, e.id);
      if (seen?.enabled && (await store.disable(seen, { reason: `failed ${n++}`, at: seen.updatedAt }))) {
        recorded.add(disablingKey(seen.id, seen.enabledAt));
      }
    }
  })();
  let last = e;
  for (let i = 1; i <= 40; i++) {
    const secret = generateWebhookSecret();
    // Every 4th change re-enables it (a new `enabledAt`): the disablings before no longer apply.
    const enabledAt = i % 4 === 0 ? at(i) : last.enabledAt;
    const updated = await store.update(
      scope,
      e.id,
      {
        url: `https://hooks.example/${i}`,
        secret,
        previousSecret: { secret: last.secret, expiresAt: at(86_400_000 + i) },
        ...(i % 4 === 0 ? { enabled: true, enabledAt } : {}),
        updatedAt: at(i),
      },
      last,
    );
    expect(updated).toMatchObject({ url: `https://hooks.example/${i}`, secret, enabledAt, revision: i });
    last = updated as WebhookEndpoint;
  }
  done = true;
  await disabler;
  const final = await store.get(scope, e.id);
  expect(final).toMatchObject({ url: 'https://hooks.example/40', secret: last.secret, enabledAt: at(40) });
  expect(final?.previousSecret).toEqual(last.previousSecret);
  // Disabled exactly when a disabling was recorded for the endpoint as last enabled.
  expect(final?.enabled).toBe(!recorded.has(disablingKey(e.id, at(40))));
  expect(recorded.size).toBeGreaterThan(0);
});
