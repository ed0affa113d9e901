export * from './store/mongo-forms-store.ts';
