export * from './api.ts';
export * from './events.ts';
export * from './forms.ts';
export * from './topics.ts';
