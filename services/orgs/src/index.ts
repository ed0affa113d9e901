export * from './create-service.ts';
export * from './store/orgs-store.ts';
export * from './store/sqlite-orgs-store.ts';
