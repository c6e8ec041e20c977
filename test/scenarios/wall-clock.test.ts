import { describe, expect, it } from 'vitest';
import { ScaledWallClock } from '../../scenarios/wall-clock.js';
import { RunTimers } from '../../scenarios/virtual-timers.js';

describe('ScaledWallClock', () => {
  it('reads wall time since start divided by the scale, standing at 0 until started', () => {
    let wall = 1_000;
    const clock = new ScaledWallClock(0.01, () => wall);

    wall += 500;
    expect(clock.now()).toBe(0);
    clock.start();
    wall += 50;
    expect(clock.now()).toBe(5_000);
    wall += 1_200;
    expect(clock.now()).toBe(125_000);
  });

  it('holds its timers until started, then fires each after its delay × scale of wall time', async () => {
    const clock = new ScaledWallClock(0.001);
    const fired: string[] = [];
    clock.setTimer(100_000, () => fired.push('100 s'));
    clock.setTimer(20_000, () => fired.push('20 s'));
    await new Promise((r) => setTimeout(r, 150));
    expect(fired).toEqual([]);
    expect(clock.pendingTimers).toBe(2);

    const began = performance.now();
    clock.start();
    await clock.sleep(120_000);
    const wallMs = performance.now() - began;

    expect(fired).toEqual(['20 s', '100 s']);
    expect(clock.now()).toBeGreaterThanOrEqual(120_000);
    expect(wallMs).toBeGreaterThanOrEqual(110);
    expect(wallMs).toBeLessThan(2_000);
    clock.stop();
  });

  it('never reads a time before the due time of a timer that fired', async () => {
    const clock = new ScaledWallClock(0.001);
    clock.start();
    const seen: number[] = [];
    for (const ms of [5_000, 10_000, 15_000]) clock.setTimer(ms, () => seen.push(clock.now()));
    await clock.sleep(16_000);

    expect(seen).toHaveLength(3);
    seen.forEach((at, i) => {
      expect(at).toBeGreaterThanOrEqual((i + 1) * 5_000);
    });
    clock.stop();
  });

  it('stop cancels every timer still waiting; a cancelled timer never fires', async () => {
    const clock = new ScaledWallClock(0.001);
    clock.start();
    let fired = 0;
    const cancel = clock.setTimer(10_000, () => fired++);
    clock.setTimer(20_000, () => fired++);
    cancel();
    clock.stop();
    await new Promise((r) => setTimeout(r, 60));

    expect(fired).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('orders events, and a hold does not stop wall time', () => {
    let wall = 0;
    const clock = new ScaledWallClock(0.5, () => wall);
    clock.start();
    const release = clock.hold();
    wall += 10;

    expect(clock.now()).toBe(20);
    expect([clock.sequence(), clock.sequence()]).toEqual([1, 2]);
    release();
  });

  it('refuses a scale outside (0, 1]', () => {
    for (const scale of [0, -1, 1.5, Number.NaN])
      expect(() => new ScaledWallClock(scale)).toThrow(/time scale must be in \(0, 1\]/);
  });
});

describe('ScaledWallClock under the run timers of an agent that keeps no clock of its own', () => {
  it('reads real time, not the performance.now the timers make follow it (no recursion)', async () => {
    const clock = new ScaledWallClock(0.5);
    clock.start();
    const timers = new RunTimers(clock);
    const seen = await timers.run(async () => {
      await new Promise((r) => setTimeout(r, 0));
      return { now: clock.now(), perf: performance.now() };
    });
    clock.stop();
    expect(seen.now).toBeGreaterThanOrEqual(0);
    // performance.now follows the run's clock inside the timers' scope.
    expect(seen.perf).toBeGreaterThanOrEqual(seen.now);
    expect(seen.perf).toBeLessThan(seen.now + 1_000);
  });
});
