export * from './delivery.ts';
export * from './event-bus.ts';
