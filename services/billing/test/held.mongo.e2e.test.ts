import { createMongoHeldStore } from '../src/store/mongo/held.ts';
import { runHeldStoreContract } from './held-store.contract.ts';
import { useBillingMongo } from './mongo-billing.ts';

const db = useBillingMongo();

runHeldStoreContract({ name: 'mongo', create: async () => createMongoHeldStore(await db()) });
runHeldStoreContract({
  name: 'mongo, deferred emails',
  create: async () => createMongoHeldStore(await db(), { ledger: 'emails' }),
});
