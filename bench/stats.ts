/** The median of `values` (the mean of the middle two when their count is even). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/**
 * The `q`-quantile of `values` (0 ≤ q ≤ 1), interpolated linearly between the two nearest
 * ranks — the same definition as numpy's default and R's type 7.
 */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const above = Math.ceil(at);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (at - below);
}

/** Median and interquartile range of a sample: what every figure of the benchmarks prints. */
export interface Spread {
  median: number;
  q1: number;
  q3: number;
  n: number;
}

export function spread(values: readonly number[]): Spread {
  return {
    median: median(values),
    q1: quantile(values, 0.25),
    q3: quantile(values, 0.75),
    n: values.length,
  };
}

/** `1.23 (IQR 1.10–1.31)`, with `digits` decimals and an optional unit after each number. */
export function fmtSpread(s: Spread, digits = 2, unit = ''): string {
  const f = (v: number) => `${v.toFixed(digits)}${unit}`;
  return `${f(s.median)} (IQR ${f(s.q1)}–${f(s.q3)})`;
}

/**
 * Whether a sample of ratios decides against an upper bound: `meets` when even its upper
 * quartile is at or under the bound, `misses` when even its lower quartile is over it,
 * `undecided` when the bound falls inside the interquartile range.
 */
export function verdict(s: Spread, atMost: number): 'meets' | 'misses' | 'undecided' {
  if (s.q3 <= atMost) return 'meets';
  if (s.q1 > atMost) return 'misses';
  return 'undecided';
}

/**
 * The same decision against a lower bound (a rate that must reach a target): `meets` when even
 * its lower quartile is at or over the bound, `misses` when even its upper quartile is under it.
 */
export function verdictAtLeast(s: Spread, atLeast: number): 'meets' | 'misses' | 'undecided' {
  if (s.q1 >= atLeast) return 'meets';
  if (s.q3 < atLeast) return 'misses';
  return 'undecided';
}

export function fmt(us: number): string {
  return `${us.toFixed(1)} µs`;
}
