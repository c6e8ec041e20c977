import { describe, expect, it } from 'vitest';
import {
  fmtSpread,
  median,
  medianInterval,
  quantile,
  spread,
  verdict,
  verdictAtLeast,
} from '../../bench/stats.js';

describe('bench statistics', () => {
  it('takes quantiles by linear interpolation between ranks (numpy default, R type 7)', () => {
    const values = [7, 1, 3, 5, 9];
    expect(quantile(values, 0)).toBe(1);
    expect(quantile(values, 0.25)).toBe(3);
    expect(quantile(values, 0.5)).toBe(5);
    expect(quantile(values, 1)).toBe(9);
    expect(quantile([1, 2, 3, 4], 0.25)).toBeCloseTo(1.75);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('gives the median with its interquartile range, and prints them side by side', () => {
    const s = spread([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(s).toEqual({ median: 5, q1: 3, q3: 7, n: 9 });
    expect(fmtSpread(s, 1, '×')).toBe('5.0× (IQR 3.0×–7.0×)');
  });

  it('decides against a bound only when the whole interquartile range is on one side', () => {
    expect(verdict({ median: 1.1, q1: 1.0, q3: 1.3, n: 9 }, 1.3)).toBe('meets');
    expect(verdict({ median: 1.5, q1: 1.31, q3: 1.8, n: 9 }, 1.3)).toBe('misses');
    expect(verdict({ median: 1.2, q1: 1.1, q3: 1.4, n: 9 }, 1.3)).toBe('undecided');
  });

  it('decides against a lower bound the same way: meets only when the lower quartile reaches it', () => {
    expect(verdictAtLeast({ median: 600, q1: 500, q3: 700, n: 5 }, 500)).toBe('meets');
    expect(verdictAtLeast({ median: 190, q1: 180, q3: 499, n: 5 }, 500)).toBe('misses');
    expect(verdictAtLeast({ median: 1.8, q1: 1.7, q3: 1.9, n: 5 }, 1.8)).toBe('undecided');
  });

  it('bounds the median by order statistics: the narrowest symmetric ranks whose binomial coverage reaches the confidence', () => {
    const ranks = Array.from({ length: 21 }, (_, i) => 21 - i); // 21 … 1, unsorted on purpose
    const m = medianInterval(ranks);
    expect([m.low, m.high]).toEqual([6, 16]);
    expect(m.confidence).toBeCloseTo(1 - (2 * 27_896) / 2 ** 21, 6);
    expect(medianInterval([1, 2, 3, 4, 5, 6, 7, 8, 9])).toMatchObject({ low: 2, high: 8 });
    // Too few values for 95%: the whole range, with the coverage it has.
    expect(medianInterval([3, 1, 2, 5, 4])).toEqual({ low: 1, high: 5, confidence: 1 - 2 / 32 });
  });
});
