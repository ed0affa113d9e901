export * from './endpoints/mongo-webhook-endpoint-store.ts';
export * from './recipients/mongo-recipient-store.ts';
export * from './store/mongo/index.ts';
