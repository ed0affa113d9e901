import { useTestMongo } from '@formgate/store/testing';
import { createMongoUsageStore } from '../src/store/mongo-usage-store.ts';
import { runUsageStoreContract } from './usage-store.contract.ts';

const mongo = useTestMongo();

runUsageStoreContract({ name: 'mongo', create: (meter) => createMongoUsageStore(mongo(), { meter }) });
