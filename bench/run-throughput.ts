/**
 * `faultline run` throughput: the hand-written library (`'!tau-retail/*'`, unless
 * BENCH_RUN_ARGS names other globs), serially (`--workers 1`: the command's default for a
 * suite this size is every core), in this process (the
 * command's own entry, file stores, results and trajectories written), into a fresh temporary
 * folder each round. Prints runs per second by wall clock and per CPU-second of this process,
 * median and interquartile range of the rounds, with the target (≥ 200 runs/s serial).
 *
 * `npx tsx bench/run-throughput.ts`; env: BENCH_ROUNDS (7), BENCH_WARMUP (1 round run, not
 * counted), BENCH_RUN_ARGS (extra arguments for `run`, e.g. "refunds/*").
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../bin/cli.js';
import { quietIo } from './quiet-io.js';
import { loadAverage, rounds, timed } from './rounds.js';
import { fmtSpread, spread, verdictAtLeast, type Spread } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
const EXTRA = (process.env.BENCH_RUN_ARGS ?? '!tau-retail/*').split(' ').filter((a) => a !== '');

const silent = quietIo();

/** One `faultline run` of the library into a fresh folder: runs made, wall and CPU seconds. */
async function runOnce(): Promise<{ runs: number; wall: number; cpu: number }> {
  const out = mkdtempSync(join(tmpdir(), 'faultline-bench-run-'));
  try {
    const {
      value: status,
      wallSeconds,
      cpuSeconds,
    } = await timed(() => main(['run', ...EXTRA, '--workers', '1', '--out', out], silent));
    if (status !== 0) throw new Error(`faultline run exited ${status}`);
    const runs = readFileSync(join(out, 'results.jsonl'), 'utf8').trim().split('\n').length;
    return { runs, wall: wallSeconds, cpu: cpuSeconds };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Issue 18's target: runs per second of `faultline run`, serial. */
export const TARGET_RUNS_PER_SECOND = 200;

/** What {@link benchRunThroughput} measured: runs per second by wall clock, over rounds. */
export interface RunThroughputFigures {
  runsPerSecond: Spread;
  runsPerCpuSecond: Spread;
  runsPerRound: number;
}

/** Prints `faultline run`'s throughput (median and IQR of rounds, with the target) and returns it. */
export async function benchRunThroughput(): Promise<RunThroughputFigures> {
  console.log(
    `faultline run throughput: the built-in library${EXTRA.length ? ` (${EXTRA.join(' ')})` : ''}, serial, in-process, file stores and trajectories written; median (IQR) of ${ROUNDS} rounds after ${WARMUP} warm-up round(s); load ${loadAverage(1)}`,
  );
  const got = await rounds({ rounds: ROUNDS, warmup: WARMUP }, runOnce);
  const figures: RunThroughputFigures = {
    runsPerSecond: spread(got.map((g) => g.runs / g.wall)),
    runsPerCpuSecond: spread(got.map((g) => g.runs / g.cpu)),
    runsPerRound: got.at(-1)?.runs ?? 0,
  };
  console.log(
    `  ${figures.runsPerRound} runs a round: ${fmtSpread(figures.runsPerSecond, 1)} runs/s by wall clock (target ≥ ${TARGET_RUNS_PER_SECOND} runs/s serial: ${verdictAtLeast(figures.runsPerSecond, TARGET_RUNS_PER_SECOND)}) · ${fmtSpread(figures.runsPerCpuSecond, 1)} runs per CPU-second`,
  );
  return figures;
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await benchRunThroughput();
