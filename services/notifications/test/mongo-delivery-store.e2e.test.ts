import { useTestMongo } from '@formgate/store/testing';
import { createMongoDeliveryStore } from '../src/deliveries/mongo-delivery-store.ts';
import { runDeliveryStoreContract } from './delivery-store.contract.ts';

// biome-ignore lint/correctness/useHookAtTopLevel: a vitest lifecycle helper, not a React hook (react is a dependency here)
const mongo = useTestMongo();

runDeliveryStoreContract({ name: 'mongo', create: () => createMongoDeliveryStore(mongo()) });
