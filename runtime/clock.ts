/**
 * The runtime's only source of time. The harness hands in a virtual clock so that timeouts,
 * backoff and approval waits advance simulated time without sleeping; production code uses
 * {@link systemClock}.
 *
 * @example
 * ```ts
 * const started = clock.now();
 * await clock.sleep(500);
 * ```
 */
export interface Clock {
  /** Milliseconds since the clock's epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Calls `fire` after `ms` unless the returned cancel runs first. The cheap form for
   * timeouts that usually do not fire (one per tool call): no promise, no abort signal.
   */
  setTimer(ms: number, fire: () => void): () => void;
}

/** Wall-clock time, for running the runtime outside the harness. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  setTimer: (ms, fire) => {
    const timer = setTimeout(fire, ms);
    return () => {
      clearTimeout(timer);
    };
  },
};
