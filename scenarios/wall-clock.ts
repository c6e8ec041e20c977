import { sleepOnTimer } from '../runtime/clock.js';
import type { RunClock } from './run-clock.js';
import { wallNow as realNow, wallTimers } from './virtual-timers.js';

interface WallTimer {
  readonly at: number;
  readonly seq: number;
  readonly fire: () => void;
}

/** The longest wait `setTimeout` takes (a longer one fires at once). */
const MAX_WAIT = 2_147_483_647;

/**
 * A run's clock for a client that lives in wall time (`faultline serve`): virtual time is
 * wall time since {@link ScaledWallClock.start}, divided by `scale`, so every delay the run
 * imposes — a late reply, an approval hours away, a rate-limit or outage window, the run's own
 * deadline — passes in `delay × scale` of wall time, and a client that waits out a window in
 * wall time sees it over. `scale` 0.01 makes a 120 s late reply 1.2 s and a 6 h budget 216 s.
 *
 * Until started, time stands at 0 and timers wait: a served run's clock starts when its client
 * connects, not when the server does. Time never goes back, and a timer fires no earlier than
 * its due time (in virtual time). Not deterministic, by nature: a live client decides when.
 *
 * @example
 * ```ts
 * const clock = new ScaledWallClock(0.01);
 * clock.start();
 * await clock.sleep(60_000); // 600 ms of wall time; clock.now() ≥ 60_000
 * clock.stop();
 * ```
 */
export class ScaledWallClock implements RunClock {
  private startedAt: number | undefined;
  /** The latest due time of a timer fired: `now` never reads less. */
  private floor = 0;
  private order = 0;
  private seq = 0;
  /** Waiting timers, the earliest first (ties: in the order they were set). */
  private timers: WallTimer[] = [];
  /** The one wall timer, for the earliest of them. */
  private handle: NodeJS.Timeout | undefined;

  /** @param scale wall milliseconds per virtual millisecond, in (0, 1]. */
  constructor(
    readonly scale: number,
    // The real clock, saved before any run's timers make `performance.now` follow a run's
    // clock (this one, for an agent that keeps none of its own): read through them, it would
    // call itself.
    private readonly wallNow: () => number = realNow,
  ) {
    if (!(scale > 0 && scale <= 1))
      throw new RangeError(`time scale must be in (0, 1] (got ${scale})`);
  }

  /** Starts time; timers set before now count from here. Later calls do nothing. */
  start(): void {
    if (this.startedAt !== undefined) return;
    this.startedAt = this.wallNow();
    this.schedule();
  }

  get started(): boolean {
    return this.startedAt !== undefined;
  }

  now(): number {
    if (this.startedAt === undefined) return this.floor;
    // Whole milliseconds, as the virtual clock keeps: worlds and reports print them.
    return Math.max(this.floor, Math.floor((this.wallNow() - this.startedAt) / this.scale));
  }

  sequence(): number {
    return ++this.order;
  }

  /** Wall time flows on whoever is busy: a hold changes nothing. */
  hold(): () => void {
    return () => undefined;
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOnTimer((delay, fire) => this.setTimer(delay, fire), ms, signal);
  }

  setTimer(ms: number, fire: () => void): () => void {
    const timer: WallTimer = { at: this.now() + Math.max(0, ms), seq: this.seq++, fire };
    this.timers.push(timer);
    this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    this.schedule();
    return () => {
      const at = this.timers.indexOf(timer);
      if (at < 0) return;
      this.timers.splice(at, 1);
      this.schedule();
    };
  }

  /** Cancels every timer still waiting (the run is over: nothing of it may fire later). */
  stop(): void {
    wallTimers.clearTimeout(this.handle);
    this.handle = undefined;
    this.timers = [];
  }

  /** One wall timer for the earliest timer: timers fire one by one, in order of due time. */
  private schedule(): void {
    wallTimers.clearTimeout(this.handle);
    this.handle = undefined;
    const next = this.timers[0];
    if (this.startedAt === undefined || !next) return;
    const wall = Math.min(Math.max(0, (next.at - this.now()) * this.scale), MAX_WAIT);
    // Node's own timers: a run's timers (an agent that keeps no clock) would come back here.
    this.handle = wallTimers.setTimeout(() => {
      this.fireNext();
    }, wall);
  }

  private fireNext(): void {
    this.handle = undefined;
    const next = this.timers[0];
    if (!next) return;
    // Still far off: a wait longer than setTimeout takes. (Node may wake a little early; within
    // a wall millisecond the timer is due, and time is moved to its due time.)
    if ((next.at - this.now()) * this.scale > 1) {
      this.schedule();
      return;
    }
    this.timers.shift();
    this.floor = Math.max(this.floor, next.at);
    next.fire();
    this.schedule();
  }
}
