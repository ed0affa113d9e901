export * from './delivery.ts';
export * from './event-bus.ts';
export * from './kafka-bus.ts';
export * from './sqlite-bus.ts';
