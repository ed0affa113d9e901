export * from './clock.ts';
export * from './config.ts';
export * from './errors.ts';
export * from './http.ts';
export * from './identity.ts';
export * from './logger.ts';
export * from './service.ts';
