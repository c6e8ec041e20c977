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
 * A distribution-free confidence interval for the median: the `k`-th smallest and `k`-th
 * largest values, with `k` the largest rank whose binomial coverage, 1 − 2·P(Binomial(n, ½) <
 * k), still reaches `confidence`; with too few values for it, the whole range. Unlike the IQR,
 * which describes how far single rounds scatter, it narrows with more rounds: it says where the
 * median itself lies. `confidence` in the result is the coverage actually reached.
 */
export function medianInterval(
  values: readonly number[],
  confidence = 0.95,
): { low: number; high: number; confidence: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { low: Number.NaN, high: Number.NaN, confidence: 0 };
  // below[k] = P(Binomial(n, ½) < k), built term by term.
  let term = 0.5 ** n;
  let below = 0;
  let k = 1;
  let coverage = 1 - 2 * term;
  for (;;) {
    below += term;
    term = (term * (n - k + 1)) / k;
    const next = 1 - 2 * (below + term);
    if (k + 1 > Math.floor((n + 1) / 2) || next < confidence) break;
    k++;
    coverage = next;
  }
  return { low: sorted[k - 1]!, high: sorted[n - k]!, confidence: coverage };
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
