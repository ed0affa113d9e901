export * from './config.ts';
export * from './contract-suite.ts';
export * from './eventually.ts';
export * from './loaded-packages.ts';
export * from './ports.ts';
export * from './privacy.ts';
export * from './prometheus-text.ts';
