export * from './config.ts';
export * from './create-service.ts';
export * from './store/held-store.ts';
export * from './store/sqlite-held-store.ts';
export * from './store/sqlite-subscription-store.ts';
export * from './store/sqlite-usage-store.ts';
export * from './store/subscription-store.ts';
export * from './store/usage-store.ts';
