import { MailSendError } from './mailer.ts';

/** Lets `close` wait for the sends already started, and refuses sends that come after it. */
export function createSendTracker() {
  const pending = new Set<Promise<unknown>>();
  let closed = false;
  return {
    run<T>(send: () => Promise<T>): Promise<T> {
      if (closed) return Promise.reject(new MailSendError('mailer is closed', false));
      const promise = send();
      pending.add(promise);
      const forget = () => pending.delete(promise);
      promise.then(forget, forget);
      return promise;
    },
    async close() {
      closed = true;
      await Promise.allSettled(pending);
    },
  };
}
