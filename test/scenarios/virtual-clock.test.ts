import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../scenarios/virtual-clock.js';

const HOUR = 3_600_000;

/** Lets the event loop run `n` full turns (real turns, not virtual time). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('VirtualClock', () => {
  it('starts at 0, or at the start it is given', () => {
    expect(new VirtualClock().now()).toBe(0);
    expect(new VirtualClock({ start: 5_000 }).now()).toBe(5_000);
  });

  it('resolves sleeps in time order, whatever order they were set in', async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];

    await Promise.all([
      clock.sleep(300).then(() => fired.push(`c@${clock.now()}`)),
      clock.sleep(100).then(() => fired.push(`a@${clock.now()}`)),
      clock.sleep(200).then(() => fired.push(`b@${clock.now()}`)),
    ]);

    expect(fired).toEqual(['a@100', 'b@200', 'c@300']);
  });

  it('fires timers due at the same instant in the order they were set', async () => {
    const clock = new VirtualClock();
    const fired: number[] = [];

    await Promise.all([0, 1, 2, 3, 4].map((i) => clock.sleep(1_000).then(() => fired.push(i))));

    expect(fired).toEqual([0, 1, 2, 3, 4]);
    expect(clock.now()).toBe(1_000);
  });

  it('jumps now() to the timer time when the timer fires, and counts pending timers', async () => {
    const clock = new VirtualClock({ start: 10 });
    const sleeping = clock.sleep(90_000);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.now()).toBe(10);

    await sleeping;

    expect(clock.now()).toBe(90_010);
    expect(clock.pendingTimers).toBe(0);
  });

  it('treats a negative sleep as zero', async () => {
    const clock = new VirtualClock({ start: 50 });

    await clock.sleep(-1_000);

    expect(clock.now()).toBe(50);
  });

  it('does not advance while a hold is open, and advances once it is released', async () => {
    const clock = new VirtualClock();
    let woke = false;
    const release = clock.hold();
    const sleeping = clock.sleep(5_000).then(() => (woke = true));

    await turns(20);
    expect(woke).toBe(false);
    expect(clock.now()).toBe(0);
    expect(clock.pendingTimers).toBe(1);

    release();
    await sleeping;
    expect(woke).toBe(true);
    expect(clock.now()).toBe(5_000);
  });

  it('waits for every hold: releasing one of two, or one twice, is not enough', async () => {
    const clock = new VirtualClock();
    let woke = false;
    const first = clock.hold();
    const second = clock.hold();
    const sleeping = clock.sleep(1).then(() => (woke = true));

    first();
    first(); // a second release of the same hold must not release the other one
    await turns(20);
    expect(woke).toBe(false);

    second();
    await sleeping;
    expect(woke).toBe(true);
  });

  it('rejects an aborted sleep with the signal reason, drops its timer and does not advance time', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    const reason = new Error('gave up');
    const aborted = clock.sleep(60_000, controller.signal);

    controller.abort(reason);

    await expect(aborted).rejects.toBe(reason);
    expect(clock.pendingTimers).toBe(0);
    await turns(5);
    expect(clock.now()).toBe(0);
  });

  it('lets a later timer fire at its own time when an earlier one was aborted', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    const early = clock.sleep(1_000, controller.signal);
    const late = clock.sleep(7_000);

    controller.abort(new Error('cancelled'));

    await expect(early).rejects.toThrow('cancelled');
    await late;
    expect(clock.now()).toBe(7_000);
  });

  it('rejects at once when the signal is already aborted, without setting a timer', async () => {
    const clock = new VirtualClock();
    const reason = new Error('already gone');

    const sleeping = clock.sleep(10, AbortSignal.abort(reason));

    expect(clock.pendingTimers).toBe(0);
    await expect(sleeping).rejects.toBe(reason);
    expect(clock.now()).toBe(0);
  });

  it('runs a 72-hour chain of sleeps to exactly 72 hours of virtual time', async () => {
    const clock = new VirtualClock();
    let steps = 0;

    for (let i = 0; i < 72 * 4; i++) {
      await clock.sleep(15 * 60_000);
      steps++;
    }

    expect(steps).toBe(288);
    expect(clock.now()).toBe(72 * HOUR);
  });

  it('never advances time while a microtask chain is still running', async () => {
    const clock = new VirtualClock();
    let seenAtEnd: number | undefined;
    const chain = (async () => {
      for (let i = 0; i < 1_000; i++) await Promise.resolve();
      seenAtEnd = clock.now();
    })();

    await Promise.all([clock.sleep(1_000), chain]);

    expect(seenAtEnd).toBe(0);
    expect(clock.now()).toBe(1_000);
  });

  it('never overtakes work that is one event-loop turn away when idleTurns allows for it', async () => {
    const clock = new VirtualClock({ idleTurns: 3 });
    const order: string[] = [];

    await Promise.all([
      clock.sleep(1).then(() => order.push('timer')),
      turns(2).then(() => order.push(`work@${clock.now()}`)),
    ]);

    expect(order).toEqual(['work@0', 'timer']);
  });

  it('advanceTo moves time forward only', () => {
    const clock = new VirtualClock({ start: 1_000 });

    clock.advanceTo(500);
    expect(clock.now()).toBe(1_000);

    clock.advanceTo(2_500);
    expect(clock.now()).toBe(2_500);
  });

  it('measures a sleep from the time it was set, after advanceTo', async () => {
    const clock = new VirtualClock();
    clock.advanceTo(HOUR);

    await clock.sleep(30_000);

    expect(clock.now()).toBe(HOUR + 30_000);
  });
});
