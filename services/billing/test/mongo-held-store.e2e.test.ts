import { useTestMongo } from '@formgate/store/testing';
import { createMongoHeldStore } from '../src/store/mongo-held-store.ts';
import { runHeldStoreContract } from './held-store.contract.ts';

const mongo = useTestMongo();

runHeldStoreContract({ name: 'mongo', create: () => createMongoHeldStore(mongo()) });
runHeldStoreContract({
  name: 'mongo, deferred emails',
  create: () => createMongoHeldStore(mongo(), { ledger: 'emails' }),
});
