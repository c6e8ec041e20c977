/**
 * `faultline run` throughput: the whole built-in library, serially, in this process (the
 * command's own entry, file stores, results and trajectories written), into a fresh temporary
 * folder each round. Prints runs per second by wall clock and per CPU-second of this process,
 * median and interquartile range of the rounds, with the target (≥ 200 runs/s serial).
 *
 * `npx tsx bench/run-throughput.ts`; env: BENCH_ROUNDS (7), BENCH_WARMUP (1 round run, not
 * counted), BENCH_RUN_ARGS (extra arguments for `run`, e.g. "refunds/*").
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../bin/cli.js';
import type { Io } from '../bin/io.js';
import { withSpread } from './quartiles.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
const EXTRA = (process.env.BENCH_RUN_ARGS ?? '').split(' ').filter((a) => a !== '');

const silent: Io = {
  out: () => undefined,
  err: () => undefined,
  progress: () => undefined,
  progressDone: () => undefined,
  color: false,
  tty: false,
};

/** One `faultline run` of the library into a fresh folder: runs made, wall and CPU seconds. */
async function runOnce(): Promise<{ runs: number; wall: number; cpu: number }> {
  const out = mkdtempSync(join(tmpdir(), 'faultline-bench-run-'));
  try {
    const since = process.cpuUsage();
    const started = performance.now();
    const status = await main(['run', ...EXTRA, '--out', out], silent);
    const wall = (performance.now() - started) / 1_000;
    const used = process.cpuUsage(since);
    if (status !== 0) throw new Error(`faultline run exited ${status}`);
    const runs = readFileSync(join(out, 'results.jsonl'), 'utf8').trim().split('\n').length;
    return { runs, wall, cpu: (used.user + used.system) / 1e6 };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export async function benchRunThroughput(): Promise<void> {
  console.log(
    `faultline run throughput: the built-in library${EXTRA.length ? ` (${EXTRA.join(' ')})` : ''}, serial, in-process, file stores and trajectories written; median (IQR) of ${ROUNDS} rounds after ${WARMUP} warm-up round(s); load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const wall: number[] = [];
  const cpu: number[] = [];
  let runs = 0;
  for (let r = -WARMUP; r < ROUNDS; r++) {
    const got = await runOnce();
    if (r < 0) continue;
    runs = got.runs;
    wall.push(got.runs / got.wall);
    cpu.push(got.runs / got.cpu);
  }
  console.log(
    `  ${runs} runs a round: ${withSpread(wall)} runs/s by wall clock (target ≥ 200 runs/s serial) · ${withSpread(cpu)} runs per CPU-second`,
  );
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await benchRunThroughput();
