import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { Clock } from '../runtime/clock.js';

/**
 * What `Date.now()` reads at virtual time 0 inside a run: a fixed instant, so one seed
 * reproduces every date an agent makes.
 */
export const VIRTUAL_EPOCH_MS = Date.UTC(2026, 0, 1);

/** Node's own limit: a delay outside 1..TIMEOUT_MAX is taken as 1 ms. */
const TIMEOUT_MAX = 2 ** 31 - 1;

const real = {
  setTimeout: globalThis.setTimeout,
  clearTimeout: globalThis.clearTimeout,
  setInterval: globalThis.setInterval,
  clearInterval: globalThis.clearInterval,
  Date: globalThis.Date,
  performanceNow: performance.now.bind(performance),
};

/** Wall time in ms, never virtual: for the harness's own limits (the hang watchdog). */
export const wallNow: () => number = real.performanceNow;

/**
 * Node's own `setTimeout` and `clearTimeout`, never a run's: for a clock that itself follows
 * wall time (`ScaledWallClock`), which a run's timers would otherwise route back to itself.
 */
export const wallTimers = { setTimeout: real.setTimeout, clearTimeout: real.clearTimeout };

const scope = new AsyncLocalStorage<RunTimers>();
/** Live virtual timers by their numeric id, for `clearTimeout(id)` after `+timer`. */
const byId = new Map<number, VirtualTimeout>();
let nextId = 1;
let installed = false;

/**
 * A timer set by an agent inside a run: fires on the run's virtual clock. Shaped like Node's
 * `Timeout` (ref, unref, hasRef, refresh, a numeric primitive) so code that keeps or clears
 * the handle works unchanged.
 */
class VirtualTimeout {
  readonly id = nextId++;
  private cancel: (() => void) | undefined;

  constructor(
    private readonly owner: RunTimers,
    private readonly callback: () => void,
    private readonly delay: number,
    private readonly repeat: boolean,
  ) {
    this.arm();
  }

  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  hasRef(): boolean {
    return true;
  }
  refresh(): this {
    if (this.cancel) {
      this.cancel();
      this.arm();
    }
    return this;
  }
  close(): this {
    this.clear();
    return this;
  }
  [Symbol.toPrimitive](): number {
    return this.id;
  }
  [Symbol.dispose](): void {
    this.clear();
  }

  clear(): void {
    this.cancel?.();
    this.cancel = undefined;
    this.owner.live.delete(this);
    byId.delete(this.id);
  }

  private arm(): void {
    this.owner.live.add(this);
    byId.set(this.id, this);
    this.cancel = this.owner.clock.setTimer(this.delay, () => {
      if (this.repeat) this.arm();
      else this.clear();
      try {
        this.callback();
      } catch (error) {
        // As a throwing Node timer does: an uncaught exception, while the clock runs on.
        process.nextTick(() => {
          throw error;
        });
      }
    });
  }
}

/**
 * Run-scoped virtual time for an in-process agent that does not read time from `run.clock`
 * alone (`exposes.clock`): inside `run`, the agent's `setTimeout`/`setInterval` (and their
 * clears), `Date.now()`, `new Date()` and `performance.now()` follow the run's virtual clock,
 * so its own sleeps and its MCP client's request timeouts take virtual time, never wall time.
 *
 * Scoped by AsyncLocalStorage: the globals are patched once per process, and the patched forms
 * consult the run the caller belongs to; outside any run (the harness, the test runner, the
 * watchdog) they are Node's own. `setImmediate` and `queueMicrotask` are never touched — the
 * virtual clock itself runs on them. Not covered: `timers/promises`, `AbortSignal.timeout` and
 * timers Node sets internally, which do not go through the globals.
 *
 * `dispose` cancels every timer the run's agent left behind (an interval never cleared, a
 * request timeout of a crashed incarnation), so nothing keeps the clock turning after it.
 *
 * @example
 * ```ts
 * const timers = new RunTimers(clock);
 * await timers.run(() => new Promise((r) => setTimeout(r, 30_000))); // clock.now() === 30_000
 * timers.dispose();
 * ```
 */
/**
 * Runs `body` (and everything it sets off) on real time, outside any run's virtual timers: the
 * harness's own waits inside an agent's call, such as a model provider's HTTP request, whose
 * timers must not wait on a clock the call itself holds.
 */
export function onRealTime<T>(body: () => T): T {
  return scope.exit(body);
}

export class RunTimers {
  /** Timers set in this run and not yet fired or cleared. */
  readonly live = new Set<VirtualTimeout>();
  private disposed = false;

  constructor(
    readonly clock: Clock,
    readonly epochMs: number = VIRTUAL_EPOCH_MS,
  ) {
    install();
  }

  /** Runs `body` (and everything it sets off) on this run's virtual time. */
  run<T>(body: () => T): T {
    return scope.run(this, body);
  }

  /** The wall-clock instant the run's virtual time stands for. */
  nowMs(): number {
    return this.epochMs + this.clock.now();
  }

  /** Cancels what is left; a timer set afterwards in this run is never armed. */
  dispose(): void {
    this.disposed = true;
    for (const timer of [...this.live]) timer.clear();
  }

  /** @internal */
  set(callback: () => void, delay: unknown, repeat: boolean): VirtualTimeout | undefined {
    if (this.disposed) return undefined;
    let ms = Number(delay);
    if (!(ms >= 1 && ms <= TIMEOUT_MAX)) ms = 1;
    return new VirtualTimeout(this, AsyncResource.bind(callback), ms, repeat);
  }
}

type TimerArgs = [callback: unknown, delay?: unknown, ...args: unknown[]];

function scheduler(repeat: boolean, original: (...args: TimerArgs) => unknown) {
  return function (this: unknown, ...all: TimerArgs): unknown {
    const run = scope.getStore();
    const [callback, delay, ...args] = all;
    // Not a function: let Node refuse it with its own error.
    if (!run || typeof callback !== 'function') return original.apply(this, all);
    const fire = (): void => {
      (callback as (...a: unknown[]) => void)(...args);
    };
    // A disposed run's agent is gone: its timer never fires, as in a process that died.
    return run.set(fire, delay, repeat) ?? new DeadTimeout();
  };
}

/** The handle a timer set after its run ended gets: inert. */
class DeadTimeout {
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  hasRef(): boolean {
    return false;
  }
  refresh(): this {
    return this;
  }
  close(): this {
    return this;
  }
}

function clearer(original: (handle?: unknown) => void) {
  return function (this: unknown, handle?: unknown): void {
    // A virtual handle is cleared from any context: a reply often arrives outside the run's.
    if (handle instanceof VirtualTimeout) handle.clear();
    else if (handle instanceof DeadTimeout) return;
    else if (typeof handle === 'number' && byId.has(handle)) byId.get(handle)?.clear();
    else original.call(this, handle);
  };
}

function install(): void {
  if (installed) return;
  installed = true;
  const g = globalThis as unknown as Record<string, unknown>;
  g['setTimeout'] = scheduler(false, real.setTimeout as (...args: TimerArgs) => unknown);
  g['setInterval'] = scheduler(true, real.setInterval as (...args: TimerArgs) => unknown);
  g['clearTimeout'] = clearer(real.clearTimeout as (handle?: unknown) => void);
  g['clearInterval'] = clearer(real.clearInterval as (handle?: unknown) => void);
  g['Date'] = virtualDate(real.Date);
  Object.defineProperty(performance, 'now', {
    configurable: true,
    writable: true,
    value: function now(): number {
      const run = scope.getStore();
      return run ? run.clock.now() : real.performanceNow();
    },
  });
}

/**
 * `Date` whose current instant is the run's virtual one: `Date.now()`, `new Date()` and
 * `Date()`. Everything else (`new Date(ms)`, `Date.parse`, `instanceof Date`) is Date's own.
 */
function virtualDate(RealDate: DateConstructor): DateConstructor {
  const now = (): number => {
    const run = scope.getStore();
    return run ? run.nowMs() : RealDate.now();
  };
  return new Proxy(RealDate, {
    construct(target, args: unknown[], newTarget: (...a: unknown[]) => unknown) {
      if (args.length === 0 && scope.getStore()) {
        return Reflect.construct(target, [now()], newTarget) as object;
      }
      return Reflect.construct(target, args, newTarget) as object;
    },
    apply(target, thisArg, args: unknown[]) {
      if (scope.getStore()) return new RealDate(now()).toString();
      return Reflect.apply(target, thisArg, args) as string;
    },
    get(target, property, receiver) {
      if (property === 'now') return now;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}
