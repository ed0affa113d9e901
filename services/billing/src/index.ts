export * from './create-service.ts';
export * from './store/sqlite-usage-store.ts';
export * from './store/usage-store.ts';
