export * from './create-service.ts';
