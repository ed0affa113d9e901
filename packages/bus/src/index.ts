export { classifyFailure, type FailureClass } from '@formgate/contracts';
export * from './consumers.ts';
export { DeadLetterHeader } from './dead-letter.ts';
export * from './delivery.ts';
export * from './event-bus.ts';
export { type ConsumerLag, groupsCaughtUp } from './lag.ts';
export * from './metrics.ts';
export * from './traced.ts';
