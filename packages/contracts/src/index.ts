export * from './access.ts';
export * from './api.ts';
export * from './billing.ts';
export * from './errors.ts';
export * from './events.ts';
export * from './forms.ts';
export * from './orgs.ts';
export * from './topics.ts';
