/**
 * What every benchmark does around its figures: rounds after uncounted warm-up rounds, a piece
 * of work timed by wall clock and by this process's CPU, and the machine's load average to
 * print beside them (on a shared machine a figure means little without the load it was taken
 * under).
 */
import { loadavg } from 'node:os';

/**
 * Runs `warmup` rounds (numbered -warmup … -1: they load modules and let the JIT settle) and
 * then `rounds` counted ones (0 … rounds-1), one after the other; returns the counted rounds'
 * results. The round's number lets a caller alternate the order of what it interleaves.
 */
export async function rounds<T>(
  counts: { rounds: number; warmup: number },
  round: (r: number) => Promise<T>,
): Promise<T[]> {
  const kept: T[] = [];
  for (let r = -counts.warmup; r < counts.rounds; r++) {
    const got = await round(r);
    if (r >= 0) kept.push(got);
  }
  return kept;
}

/** `work`'s value, with the wall-clock seconds it took and this process's CPU seconds (all threads). */
export async function timed<T>(
  work: () => Promise<T>,
): Promise<{ value: T; wallSeconds: number; cpuSeconds: number }> {
  const since = process.cpuUsage();
  const started = performance.now();
  const value = await work();
  const wallSeconds = (performance.now() - started) / 1_000;
  const used = process.cpuUsage(since);
  return { value, wallSeconds, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** The 1-, 5- and 15-minute load averages, `digits` decimals each: `1.92 2.10 2.31`. */
export function loadAverage(digits = 2): string {
  return loadavg()
    .map((l) => l.toFixed(digits))
    .join(' ');
}
