/**
 * `npm run bench`: every benchmark, then the figures of issue 18's table, each beside its
 * target and a verdict. Figures are printed, never asserted. A verdict on a median with its
 * interquartile range is `meets` or `misses` only when the whole range is on one side of the
 * target, `undecided` otherwise.
 *
 * Environment (each bench reads its own; defaults in brackets — the full bench takes a long
 * while on a loaded two-core machine, and these make it short):
 * - BENCH_DURABLE_ROUNDS [21], BENCH_DURABLE_STEPS [220], BENCH_DURABLE_PAIRS [2]: the durable
 *   write step's interleaved rounds, the steps of each run and the floor-runtime pairs on each
 *   side of a round (bench/durable-step.ts);
 * - BENCH_ROUNDS [5 for explore, 7 for run throughput], BENCH_WARMUP [2 for explore, 1 for run
 *   throughput]: counted and warm-up
 *   rounds of exploration's part (c) and of `faultline run` throughput;
 * - BENCH_WORKERS [2], BENCH_SEED [1]: exploration's worker threads and seed (bench/explore.ts,
 *   whose parts (a) and (b) `npm run bench` leaves out: `npx tsx bench/explore.ts` runs them);
 * - BENCH_RUN_ARGS [none]: extra arguments for `faultline run`, e.g. `refunds/*`
 *   (bench/run-throughput.ts; the target is for the whole library);
 * - BENCH_LONG_STEPS [1000,10000], BENCH_LONG_ROUNDS [3]: lengths and rounds of the long
 *   hostile-document runs (bench/long-run.ts; step 10,000 is reported only when the longest
 *   length reaches it).
 */
import os from 'node:os';
import { benchDurableStep, TARGET_FLOOR_RATIO, TARGET_LANGGRAPH_RATIO } from './durable-step.js';
import { benchExplore, TARGET_RUNS_PER_CPU_SECOND, TARGET_TWO_WORKER_SPEEDUP } from './explore.js';
import { benchLongRun, TARGET_STEP_RATIO } from './long-run.js';
import { loadAverage } from './rounds.js';
import { benchRunThroughput, TARGET_RUNS_PER_SECOND } from './run-throughput.js';
import { fmtSpread, verdict, verdictAtLeast, type Spread } from './stats.js';
import { benchTokenEconomics } from './token-economics.js';
import { benchVirtualTime } from './virtual-time.js';

interface Row {
  figure: string;
  measured: string;
  target: string;
  verdict: string;
}

/** A figure that must stay at or under `bound`, by wall and by CPU time. */
function atMostRow(figure: string, wall: Spread, cpu: Spread, bound: number): Row {
  return {
    figure: `${figure} (wall; CPU)`,
    measured: `${fmtSpread(wall, 2, '×')}; ${fmtSpread(cpu, 2, '×')}`,
    target: `≤ ${bound}×`,
    verdict: `${verdict(wall, bound)}; ${verdict(cpu, bound)}`,
  };
}

/** A rate or speed-up that must reach `bound`. */
function atLeastRow(figure: string, s: Spread, bound: number, digits: number, unit: string): Row {
  return {
    figure,
    measured: fmtSpread(s, digits, unit),
    target: `≥ ${bound}${unit}`,
    verdict: verdictAtLeast(s, bound),
  };
}

console.log(
  `faultline benchmarks · node ${process.version} · ${new Date().toISOString()} · ${os.cpus().length} CPUs · load average ${loadAverage()}\n`,
);
await benchVirtualTime();
console.log('');
const durable = await benchDurableStep();
console.log('');
await benchTokenEconomics();
console.log('');
const explored = await benchExplore({ parts: 'c' });
console.log('');
const served = await benchRunThroughput();
console.log('');
const longRun = await benchLongRun();
console.log('');

const base = longRun.hostile[0];
const rows: Row[] = [
  atMostRow(
    'durable write step / its floor',
    durable.floorRatio,
    durable.floorCpuRatio,
    TARGET_FLOOR_RATIO,
  ),
  atMostRow(
    'durable write step / LangGraph.js + SqliteSaver step',
    durable.langGraphRatio,
    durable.langGraphCpuRatio,
    TARGET_LANGGRAPH_RATIO,
  ),
  atLeastRow(
    'explored runs per CPU-second (bench/explore.ts, part c, one thread)',
    explored.runsPerCpuSecond,
    TARGET_RUNS_PER_CPU_SECOND,
    0,
    '',
  ),
  atLeastRow(
    'explore with two workers / one (part c, wall clock)',
    explored.twoWorkerSpeedup,
    TARGET_TWO_WORKER_SPEEDUP,
    2,
    '×',
  ),
  {
    figure: 'explore: the two-worker ceiling that CPU allows (part c)',
    measured: fmtSpread(explored.speedupCeiling, 2, '×'),
    target: "context: 2 × one thread's main-thread CPU per run ÷ all CPU per run with two workers",
    verdict: '—',
  },
  atLeastRow(
    'npx faultline run: runs per second, serial',
    served.runsPerSecond,
    TARGET_RUNS_PER_SECOND,
    0,
    ' runs/s',
  ),
  ...longRun.hostile.map((at) => ({
    figure: `a run's cost per step at step ${at.position.toLocaleString('en')} (hostile document, CPU)`,
    measured: `${at.cpuUs.toFixed(0)} µs (${at.ratio.toFixed(2)}× step ${base?.position ?? '—'})`,
    target: at === base ? 'the base' : `≤ ${TARGET_STEP_RATIO}× step ${base?.position ?? '—'}`,
    verdict: at === base ? '—' : at.ratio <= TARGET_STEP_RATIO ? 'meets' : 'misses',
  })),
  {
    figure: 'npm test wall time, fresh clone',
    measured: 'measured outside the bench: `time npm test` on a fresh clone',
    target: '≤ 4 min',
    verdict: '—',
  },
];

console.log(
  `issue 18's figures (medians, IQR in brackets; a verdict is "undecided" when the target falls inside the IQR) · load average now ${loadAverage()}`,
);
const width = Math.max(...rows.map((r) => r.figure.length));
for (const r of rows) {
  console.log(`  ${r.figure.padEnd(width)}  ${r.measured}`);
  console.log(`  ${''.padEnd(width)}  target ${r.target}: ${r.verdict}`);
}
