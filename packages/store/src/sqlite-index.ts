export * from './sqlite.ts';
export * from './sqlite-blob-store.ts';
