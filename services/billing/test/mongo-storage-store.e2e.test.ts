import { useTestMongo } from '@formgate/store/testing';
import { createMongoStorageStore } from '../src/store/mongo-storage-store.ts';
import { runStorageStoreContract } from './storage-store.contract.ts';

const mongo = useTestMongo();

runStorageStoreContract({ name: 'mongo', create: () => createMongoStorageStore(mongo()) });
