import { sleepOnTimer, type Clock } from '../runtime/clock.js';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fire: () => void;
}

/**
 * The engine's discrete-event scheduler. `sleep` registers a timer; time jumps to the earliest
 * timer only when every party is waiting on the clock: no hold is open (a request delivered to
 * a world and still being handled holds the clock) and the event loop has gone a full turn
 * without new work. A virtual sleep therefore never overtakes a reply that is microseconds
 * away, and 72 hours of backoff and approval waits take milliseconds.
 *
 * Timers due at the same instant fire in the order they were set, so runs are reproducible.
 *
 * @example
 * ```ts
 * const clock = new VirtualClock();
 * await clock.sleep(3_600_000); // returns at once, clock.now() === 3_600_000
 * ```
 */
export class VirtualClock implements Clock {
  private current: number;
  private seq = 0;
  private order = 0;
  private holds = 0;
  private timers: Timer[] = [];
  private scheduled = false;
  private readonly idleTurns: number;

  constructor(options: { start?: number; idleTurns?: number } = {}) {
    this.current = options.start ?? 0;
    this.idleTurns = options.idleTurns ?? 1;
  }

  now(): number {
    return this.current;
  }

  /**
   * One order for everything that happens on this clock: the engine stamps each call, fault,
   * operator action, crash and effect with it, and the reference runtime each of its events,
   * so two things in the same millisecond are never left unordered.
   */
  sequence(): number {
    return ++this.order;
  }

  /** Timers still waiting, for progress displays and hang detection. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOnTimer((delay, fire) => this.setTimer(delay, fire), ms, signal);
  }

  setTimer(ms: number, fire: () => void): () => void {
    const timer: Timer = {
      at: this.current + Math.max(0, ms),
      seq: this.seq++,
      fire,
    };
    this.timers.push(timer);
    this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    this.schedule();
    return () => {
      const at = this.timers.indexOf(timer);
      if (at >= 0) this.timers.splice(at, 1);
    };
  }

  /**
   * Marks a party busy: time will not advance until the returned release is called. The
   * engine holds the clock while a delivered request is being handled, and while a child
   * process is running between clock calls.
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.schedule();
    };
  }

  /** Moves time forward without a timer (for operator scripts and tests). */
  advanceTo(at: number): void {
    if (at > this.current) this.current = at;
  }

  private schedule(): void {
    if (this.scheduled || this.timers.length === 0) return;
    this.scheduled = true;
    this.waitIdle(this.idleTurns);
  }

  private waitIdle(turns: number): void {
    setImmediate(() => {
      if (turns > 1) {
        this.waitIdle(turns - 1);
        return;
      }
      this.scheduled = false;
      this.fire();
    });
  }

  private fire(): void {
    if (this.holds > 0) return;
    const next = this.timers.shift();
    if (!next) return;
    this.current = Math.max(this.current, next.at);
    next.fire();
    this.schedule();
  }
}
