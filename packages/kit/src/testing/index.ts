export * from './contract-suite.ts';
export * from './eventually.ts';
