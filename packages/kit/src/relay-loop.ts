/**
 * The loop behind every outbox relay: runs `pass` until it reports nothing more to do, one run at a time, again
 * `intervalMs` after each run once started (so rows a crash left behind go out too), and at once on `kick()`. A
 * kick during a run asks for one more run after it, and resolves when that run is over: whoever kicks after
 * writing a row knows, once the kick resolves, that a run which started after the write has finished, and whether
 * it drained everything (true) or failed. A failed pass is reported to `onError` and retried on the next tick.
 */
export function createRelayLoop(opts: {
  /** Publishes one batch; resolves true when more may be pending. */
  pass: () => Promise<boolean>;
  intervalMs: number;
  onError: (err: unknown) => void;
}) {
  let running: Promise<boolean> | undefined;
  /** The run asked for during the current one: every kick meanwhile joins it. */
  let queued: Promise<boolean> | undefined;
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
  const run = (): Promise<boolean> => {
    if (running) {
      queued ??= running.then(() => {
        queued = undefined;
        return run();
      });
      return queued;
    }
    running = drain()
      .then(
        () => true,
        (err: unknown) => {
          opts.onError(err);
          return false;
        },
      )
      .finally(() => {
        running = undefined;
        if (!queued) schedule();
      });
    return running;
  };

  return {
    /** Runs a pass now, or asks for one after the run in flight; resolves when that run is over: true if it drained. */
    kick: run,
    start() {
      started = true;
      return run();
    },
    /** Stops the ticks and waits for the run in flight and the one asked for after it. */
    async stop() {
      started = false;
      clearTimeout(timer);
      for (let r = queued ?? running; r; r = queued ?? running) await r;
    },
    /** One last drain after `stop()`, so what is pending now still goes out. */
    flush: () => drain().catch(opts.onError),
  };
}
