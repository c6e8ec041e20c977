/**
 * The median and the interquartile range of a benchmark's rounds (linear interpolation between
 * ranks): the median says where the rounds sit, the range how far one run can be trusted.
 */
export function quartiles(values: readonly number[]): { q1: number; median: number; q3: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number => {
    if (sorted.length === 0) return NaN;
    const rank = p * (sorted.length - 1);
    const lo = Math.floor(rank);
    const hi = Math.ceil(rank);
    return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
  };
  return { q1: at(0.25), median: at(0.5), q3: at(0.75) };
}

/** `123.4 (IQR 110.0–130.2)`. */
export function withSpread(values: readonly number[], digits = 1): string {
  const { q1, median, q3 } = quartiles(values);
  return `${median.toFixed(digits)} (IQR ${q1.toFixed(digits)}–${q3.toFixed(digits)})`;
}
