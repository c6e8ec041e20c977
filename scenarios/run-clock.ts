import type { Clock } from '../runtime/clock.js';

/**
 * What the engine asks of a run's clock beyond the runtime's {@link Clock}: one order of
 * events, holds (the world busy with a request), and how many timers are waiting (for hang
 * detection). The {@link VirtualClock} is the usual one; `faultline serve` runs on a
 * {@link ScaledWallClock}, since a live client lives in wall time.
 */
export interface RunClock extends Clock {
  sequence(): number;
  /** Marks a party busy; a clock that jumps waits until it is released. */
  hold(): () => void;
  readonly pendingTimers: number;
}
