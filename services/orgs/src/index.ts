export * from './create-service.ts';
export * from './store/audit-store.ts';
export * from './store/org-spam-store.ts';
export * from './store/orgs-store.ts';
export * from './store/orgs-stores.ts';
export * from './store/records.ts';
export * from './store/sqlite/index.ts';
