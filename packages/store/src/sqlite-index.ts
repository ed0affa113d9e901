export * from './sqlite.ts';
export * from './sqlite-blob-store.ts';
export * from './sqlite-migrations.ts';
