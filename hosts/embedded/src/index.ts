export * from './config.ts';
export * from './start-embedded.ts';
