import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Marks, perStepAt, profile, slope, timedAgent } from '../../bench/step-cost.js';
import { runTrial } from '../../scenarios/engine.js';
import { HOSTILE_NOTE, longPartialRefund } from '../support/long-run.js';
import { tmpOut } from '../support/trial-harness.js';

/** Marks of a run whose step i costs `base + growth × i` µs of CPU and of wall time. */
function syntheticRun(steps: number, base: number, growth: number): Marks {
  const marks: Marks = { wall: [0], cpu: [0] };
  for (let i = 1; i <= steps; i++) {
    const ms = (base + growth * i) / 1_000;
    marks.wall.push(marks.wall[i - 1]! + ms);
    marks.cpu.push(marks.cpu[i - 1]! + ms);
  }
  return marks;
}

const close = (actual: number, expected: number): void => {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(expected)));
};

describe('step cost', () => {
  it('reads the cost of the window around a position, moved inside the run at its ends', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 3_000 }),
        fc.double({ min: 1, max: 1_000, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (steps, base, growth) => {
          const marks = syntheticRun(steps, base, growth);
          const window = 100;
          const at = perStepAt(marks, [1, 100, steps, steps + 2], window);
          expect([...at.keys()]).toEqual([1, 100, steps]);
          // Steps from+1..from+window: their mean cost is that of their middle step.
          const mean = (from: number) => base + growth * (from + (window + 1) / 2);
          for (const [position, from] of [
            [1, 0],
            [100, 50],
            [steps, steps - window],
          ] as const) {
            // A line's median and mean over the window agree.
            close(at.get(position)!.cpuUs, mean(from));
            close(at.get(position)!.cpuMeanUs, mean(from));
            close(at.get(position)!.wallUs, mean(from));
          }
        },
      ),
    );
  });

  it('fits the growth of the cost per step along the run, and a flat run grows by nothing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 500, max: 5_000 }),
        fc.double({ min: 1, max: 1_000, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (steps, base, growth) => {
          close(slope(syntheticRun(steps, base, growth), 100), growth * 1_000);
          close(slope(syntheticRun(steps, base, 0), 100), 0);
        },
      ),
    );
  });

  it('shows a run whose every step scans the steps before it as past the 1.2× target', () => {
    // 300 µs a step plus 0.1 µs for each earlier step: quadratic in all, as the issue measured.
    const at = perStepAt(syntheticRun(10_000, 300, 0.1), [100, 10_000], 100);
    expect(at.get(10_000)!.cpuUs / at.get(100)!.cpuUs).toBeGreaterThan(1.2);
    const flat = perStepAt(syntheticRun(10_000, 300, 0), [100, 10_000], 100);
    close(flat.get(10_000)!.cpuUs / flat.get(100)!.cpuUs, 1);
  });

  it('reads the median step of a window, so one long pause moves the mean but not the median', () => {
    const marks = syntheticRun(1_000, 300, 0);
    // A 50 ms collection during step 500: every later reading is 50 ms on.
    for (let i = 500; i < marks.cpu.length; i++) marks.cpu[i] = marks.cpu[i]! + 50;
    const at = perStepAt(marks, [500], 100).get(500)!;
    close(at.cpuUs, 300);
    close(at.cpuMeanUs, 300 + 50_000 / 100);
  });

  it('cuts a run into equal parts and gives the mean cost of each', () => {
    expect(profile(syntheticRun(1_000, 50, 0), 10)).toHaveLength(10);
    for (const mean of profile(syntheticRun(1_000, 50, 0), 10)) close(mean, 50);
  });

  it('stamps real time at each planner call inside a run, where performance.now stands still', async () => {
    const marks: Marks = { wall: [], cpu: [] };
    const steps = 120;
    const { trajectory } = await runTrial({
      scenario: longPartialRefund(steps),
      faultPlan: HOSTILE_NOTE,
      agent: () => timedAgent(marks),
      outDir: tmpOut(),
    });

    expect(trajectory.outcome.state).toBe('completed');
    expect(marks.wall.length).toBeGreaterThanOrEqual(steps);
    expect(marks.cpu).toHaveLength(marks.wall.length);
    // A clock that followed the run's virtual time would give many equal readings.
    for (let i = 1; i < marks.wall.length; i++)
      expect(marks.wall[i]!).toBeGreaterThan(marks.wall[i - 1]!);
  });
});
