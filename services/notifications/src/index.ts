export { webhooksAllowPrivateTargetsEnv } from './config.ts';
export * from './create-service.ts';
export * from './deliveries/delivery-store.ts';
export * from './deliveries/ports.ts';
export * from './deliveries/sqlite-delivery-store.ts';
export * from './email/composer.ts';
export * from './endpoints/sqlite-webhook-endpoint-store.ts';
export * from './endpoints/webhook-endpoint-store.ts';
export * from './recipients/index.ts';
