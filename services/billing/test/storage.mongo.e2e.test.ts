import { createMongoStorageStore } from '../src/store/mongo/storage.ts';
import { useBillingMongo } from './mongo-billing.ts';
import { runStorageStoreContract } from './storage-store.contract.ts';

const db = useBillingMongo();

runStorageStoreContract({ name: 'mongo', create: async () => createMongoStorageStore(await db()) });
