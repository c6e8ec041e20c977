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
  /**
   * The next number of the clock's event order: strictly increasing, and shared by every party
   * that reads this clock. Many things happen in one millisecond; a clock that orders them (the
   * harness's virtual clock does) lets the runtime's events and what the world saw in the same
   * instant be put in one order. A wall clock need not have one.
   */
  sequence?(): number;
}

/**
 * `sleep` built on a clock's `setTimer`: resolves when the timer fires, rejects with the
 * signal's reason (and cancels the timer) when aborted first. Every clock sleeps this way.
 */
export function sleepOnTimer(
  setTimer: Clock['setTimer'],
  ms: number,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason as Error);
    };
    const cancel = setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function wallTimer(ms: number, fire: () => void): () => void {
  const timer = setTimeout(fire, ms);
  return () => {
    clearTimeout(timer);
  };
}

/** Wall-clock time, for running the runtime outside the harness. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleepOnTimer(wallTimer, ms, signal),
  setTimer: wallTimer,
};
