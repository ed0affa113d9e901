export * from './create-service.ts';
export * from './limits.ts';
