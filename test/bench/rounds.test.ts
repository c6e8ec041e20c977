import { describe, expect, it } from 'vitest';
import { loadAverage, rounds, timed } from '../../bench/rounds.js';

describe('bench rounds', () => {
  it('runs the warm-up rounds first, numbered below zero, and keeps only the counted ones', async () => {
    const seen: number[] = [];
    const kept = await rounds({ rounds: 3, warmup: 2 }, (r) => {
      seen.push(r);
      return Promise.resolve(r * 10);
    });
    expect(seen).toEqual([-2, -1, 0, 1, 2]);
    expect(kept).toEqual([0, 10, 20]);
  });

  it('times a piece of work by wall clock and CPU, and hands back its value', async () => {
    const got = await timed(() => {
      let x = 0;
      for (let i = 0; i < 2_000_000; i++) x += i;
      return Promise.resolve(x);
    });
    expect(got.value).toBe(1_999_999_000_000);
    expect(got.wallSeconds).toBeGreaterThan(0);
    expect(got.cpuSeconds).toBeGreaterThan(0);
  });

  it('prints the three load averages', () => {
    expect(loadAverage()).toMatch(/^\d+\.\d{2} \d+\.\d{2} \d+\.\d{2}$/);
    expect(loadAverage(1)).toMatch(/^\d+\.\d \d+\.\d \d+\.\d$/);
  });
});
