export * from './mongo.ts';
export * from './sqlite.ts';
