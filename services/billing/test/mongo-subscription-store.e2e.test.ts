import { useTestMongo } from '@formgate/store/testing';
import { createMongoSubscriptionStore } from '../src/store/mongo-subscription-store.ts';
import { runSubscriptionStoreContract } from './subscription-store.contract.ts';

const mongo = useTestMongo();

runSubscriptionStoreContract({ name: 'mongo', create: () => createMongoSubscriptionStore(mongo()) });
