import { createMongoSubscriptionStore } from '../src/store/mongo/subscriptions.ts';
import { useBillingMongo } from './mongo-billing.ts';
import { runSubscriptionStoreContract } from './subscription-store.contract.ts';

const db = useBillingMongo();

runSubscriptionStoreContract({ name: 'mongo', create: async () => createMongoSubscriptionStore(await db()) });
