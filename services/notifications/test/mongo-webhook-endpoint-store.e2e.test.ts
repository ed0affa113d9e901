import { useTestMongo } from '@formgate/store/testing';
import { createMongoWebhookEndpointStore } from '../src/endpoints/mongo-webhook-endpoint-store.ts';
import { runWebhookEndpointStoreContract } from './webhook-endpoint-store.contract.ts';

// biome-ignore lint/correctness/useHookAtTopLevel: a vitest lifecycle helper, not a React hook (react is a dependency here)
const mongo = useTestMongo();

runWebhookEndpointStoreContract({ name: 'mongo', create: () => createMongoWebhookEndpointStore(mongo()) });
