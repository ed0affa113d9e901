export * from './deliveries/mongo-delivery-store.ts';
export * from './endpoints/mongo-webhook-endpoint-store.ts';
export * from './recipients/mongo-recipient-store.ts';
