export * from './store/mongo/migrations/index.ts';
export * from './store/mongo/stores.ts';
