export * from './client.ts';
export * from './errors.ts';
export * from './events.ts';
export type { components as OpenApiComponents, paths as OpenApiPaths } from './openapi.ts';
export * from './submit.ts';
