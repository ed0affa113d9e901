export * from './contract-suite.ts';
export * from './eventually.ts';
export * from './ports.ts';
export * from './prometheus-text.ts';
