/**
 * The loop behind every outbox relay: runs `pass` until it reports nothing more to do, one run at a time, again
 * `intervalMs` after each run once started (so rows a crash left behind go out too), and at once on `kick()`. A
 * kick during a run asks for one more run after it. A failed pass is reported to `onError` and retried on the
 * next tick.
 */
export function createRelayLoop(opts: {
  /** Publishes one batch; resolves true when more may be pending. */
  pass: () => Promise<boolean>;
  intervalMs: number;
  onError: (err: unknown) => void;
}) {
  let running: Promise<void> | undefined;
  let again = false;
  let started = false;
  let timer: NodeJS.Timeout | undefined;

  const drain = async () => {
    while (await opts.pass()) {}
  };
  const schedule = () => {
    clearTimeout(timer);
    if (!started) return;
    timer = setTimeout(() => void run(), opts.intervalMs);
    timer.unref();
  };
  const run = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = drain()
      .catch(opts.onError)
      .finally(() => {
        running = undefined;
        if (!again) return schedule();
        again = false;
        void run();
      });
    return running;
  };

  return {
    /** Runs a pass now, or joins the one running (and asks for another after it). */
    kick: run,
    start() {
      started = true;
      return run();
    },
    /** Stops the ticks and waits for the run in flight. */
    async stop() {
      started = false;
      clearTimeout(timer);
      while (running) await running;
    },
    /** One last drain after `stop()`, so what is pending now still goes out. */
    flush: () => drain().catch(opts.onError),
  };
}
