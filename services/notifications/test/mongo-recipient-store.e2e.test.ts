import { useTestMongo } from '@formgate/store/testing';
import { createMongoRecipientStore } from '../src/recipients/mongo-recipient-store.ts';
import { runRecipientStoreContract } from './recipient-store.contract.ts';

const mongo = useTestMongo();

runRecipientStoreContract({ name: 'mongo', create: () => createMongoRecipientStore(mongo()) });
