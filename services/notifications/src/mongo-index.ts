export * from './store/mongo/index.ts';
