/**
 * An `EventBus` across a `MessagePort`, for embedded mode's threads (ADR 77): the log thread holds the one writer of
 * `bus.db` and calls `serveBus(bus, port)` with the real bus for each other thread, which uses
 * `createPortBus(otherPort)`. Everything runs on the real bus; the port carries requests, answers and batches
 * (structured clones of the records, one message per batch or per replayed turn, never one per record). Below, "the
 * worker" is the `createPortBus` end and "the serving end" the `serveBus` one.
 *
 * What the worker's bus keeps of the `EventBus` contract:
 * - `publish` resolves once the real bus resolved (durable). Errors arrive with their message; a
 *   `BusUnavailableError` arrives as one, and any other error as one that `classifyFailure` judges as it judged
 *   the original (`retryable: true` transient, `retryable: false` permanent, none unknown). The same holds for every
 *   other call.
 * - `subscribe`: the consumer loop (retries, dead letters, offsets) runs on the real bus, whose handler sends each
 *   batch across and waits for the worker's handler. A handler's failure is classified in the worker and rebuilt on
 *   the serving end as an error classified the same, with the same message (the dead letter's `x-error`); offsets
 *   are committed only after the worker's handler resolved. `stop()` stops the real subscription (draining the batch
 *   in flight) and resolves after it.
 * - `replay` resolves once every record that existed when it was called was passed to `onMessage`, in order.
 * - `close()` stops this end's subscriptions, waits for its pending calls and closes the port; the served bus stays
 *   open (its host closes it).
 * - If the port closes (the worker died, or either end closed it), the serving end stops the remote subscriptions
 *   and fails the batches in flight as transient: never committed, never dead-lettered, delivered again to the
 *   group's next member. Calls pending on the worker's end reject with `BusUnavailableError`, and so do later ones.
 *
 * Neither end keeps its thread alive by itself: the worker's port is referenced only while a call is pending or a
 * subscription or replay lives (as a real bus's consumers keep a process alive), the serving port never.
 */
export { createPortBus, type PortBusOptions } from './port-bus.ts';
export { RemoteError } from './protocol.ts';
export { type ServeBusOptions, type ServedBus, serveBus } from './serve-bus.ts';
