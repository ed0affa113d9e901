import { useTestMongo } from '@formgate/store/testing';
import { createMongoRecipientStore } from '../src/store/mongo/index.ts';
import { migratedMongo } from './notifications-db.ts';
import { runRecipientStoreContract } from './recipients.contract.ts';

// biome-ignore lint/correctness/useHookAtTopLevel: vitest's setup helper, not a React hook (this package uses React).
const mongo = useTestMongo();

runRecipientStoreContract({
  name: 'mongo',
  create: async () => createMongoRecipientStore(await migratedMongo(mongo())),
});
