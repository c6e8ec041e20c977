/**
 * `npm run bench`: every benchmark, then the figures of issue 18's table, each beside its
 * target. Figures are printed, never asserted.
 *
 * The table reads what each benchmark returns. A benchmark that does not return a figure yet
 * (or does not exist in this checkout) is shown as "not measured", with why — never a number
 * it did not measure. What the table expects of them:
 *
 * - `bench/explore.ts` `benchExplore()` → `{ runsPerCpuSecond, twoWorkerSpeedup? }` (part c);
 * - `bench/explore.ts` `benchRunThroughput()` → `{ runsPerSecond }` (`npx faultline run`);
 * - `bench/long-run.ts` `benchLongRun()` → `{ hostile: [{ position, cpuUs, wallUs, ratio }] }`.
 *
 * Each value is a number, or a median with its interquartile range ({@link Spread}).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchDurableStep, TARGET_FLOOR_RATIO, TARGET_LANGGRAPH_RATIO } from './durable-step.js';
import { fmtSpread, verdict, type Spread } from './stats.js';
import { benchTokenEconomics } from './token-economics.js';
import { benchVirtualTime } from './virtual-time.js';

type Measured = number | Spread;

interface Row {
  figure: string;
  measured: string;
  target: string;
  verdict: string;
}

const isSpread = (v: unknown): v is Spread =>
  typeof v === 'object' && v !== null && typeof (v as Spread).median === 'number';
const isMeasured = (v: unknown): v is Measured => typeof v === 'number' || isSpread(v);

function show(v: Measured, digits: number, unit = ''): string {
  return typeof v === 'number' ? `${v.toFixed(digits)}${unit}` : fmtSpread(v, digits, unit);
}

/** `meets`/`misses` for a single number; a spread decides only when its IQR is on one side. */
function judge(v: Measured, bound: number, direction: 'at-most' | 'at-least'): string {
  if (typeof v === 'number') {
    return (direction === 'at-most' ? v <= bound : v >= bound) ? 'meets' : 'misses';
  }
  if (direction === 'at-most') return verdict(v, bound);
  // At least `bound`: the same test on the negated sample.
  const negated = { median: -v.median, q1: -v.q3, q3: -v.q1, n: v.n };
  return verdict(negated, -bound);
}

function notMeasured(why: string): Pick<Row, 'measured' | 'verdict'> {
  return { measured: `not measured: ${why}`, verdict: '—' };
}

/** A module's exports, or why it has none to give. */
async function load(file: string): Promise<Record<string, unknown> | string> {
  try {
    return (await import(file)) as Record<string, unknown>;
  } catch (error) {
    return `${file} did not load (${error instanceof Error ? error.message : String(error)})`;
  }
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
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

const rows: Row[] = [
  {
    figure: 'durable write step / its floor (wall; CPU)',
    measured: `${fmtSpread(durable.floorRatio, 2, '×')}; ${fmtSpread(durable.floorCpuRatio, 2, '×')}`,
    target: `≤ ${TARGET_FLOOR_RATIO}×`,
    verdict: `${verdict(durable.floorRatio, TARGET_FLOOR_RATIO)}; ${verdict(durable.floorCpuRatio, TARGET_FLOOR_RATIO)}`,
  },
  {
    figure: 'durable write step / LangGraph.js + SqliteSaver step (wall; CPU)',
    measured: `${fmtSpread(durable.langGraphRatio, 2, '×')}; ${fmtSpread(durable.langGraphCpuRatio, 2, '×')}`,
    target: `≤ ${TARGET_LANGGRAPH_RATIO}×`,
    verdict: `${verdict(durable.langGraphRatio, TARGET_LANGGRAPH_RATIO)}; ${verdict(durable.langGraphCpuRatio, TARGET_LANGGRAPH_RATIO)}`,
  },
];

// Exploration (bench/explore.ts, part c) and the whole library's throughput.
process.env.BENCH_PARTS ??= 'c';
const explore = await load('./explore.js');
const exploreRow = (figure: string, target: string): Row => ({
  figure,
  target,
  measured: '',
  verdict: '',
});
const perCpu = exploreRow('explored runs per CPU-second (bench/explore.ts, part c)', '≥ 500');
const twoWorkers = exploreRow('explore with two workers / one (part c)', '≥ 1.8×');
const serial = exploreRow('npx faultline run: runs per second, serial', '≥ 200 runs/s');
if (typeof explore === 'string') {
  Object.assign(perCpu, notMeasured(explore));
  Object.assign(twoWorkers, notMeasured(explore));
  Object.assign(serial, notMeasured(explore));
} else {
  const benchExplore = explore.benchExplore;
  if (typeof benchExplore !== 'function') {
    Object.assign(perCpu, notMeasured('bench/explore.ts has no benchExplore()'));
    Object.assign(twoWorkers, notMeasured('bench/explore.ts has no benchExplore()'));
  } else {
    const got = ((await (benchExplore as () => Promise<unknown>)()) ?? {}) as Record<
      string,
      unknown
    >;
    console.log('');
    const { runsPerCpuSecond, twoWorkerSpeedup } = got;
    Object.assign(
      perCpu,
      isMeasured(runsPerCpuSecond)
        ? {
            measured: show(runsPerCpuSecond, 0),
            verdict: judge(runsPerCpuSecond, 500, 'at-least'),
          }
        : notMeasured('benchExplore() returns no runsPerCpuSecond (its own output is above)'),
    );
    Object.assign(
      twoWorkers,
      isMeasured(twoWorkerSpeedup)
        ? {
            measured: show(twoWorkerSpeedup, 2, '×'),
            verdict: judge(twoWorkerSpeedup, 1.8, 'at-least'),
          }
        : notMeasured('benchExplore() returns no twoWorkerSpeedup (no --workers yet)'),
    );
  }
  const benchRunThroughput = explore.benchRunThroughput;
  if (typeof benchRunThroughput !== 'function') {
    Object.assign(serial, notMeasured('bench/explore.ts has no benchRunThroughput()'));
  } else {
    const got = ((await (benchRunThroughput as () => Promise<unknown>)()) ?? {}) as Record<
      string,
      unknown
    >;
    console.log('');
    Object.assign(
      serial,
      isMeasured(got.runsPerSecond)
        ? {
            measured: show(got.runsPerSecond, 0, ' runs/s'),
            verdict: judge(got.runsPerSecond, 200, 'at-least'),
          }
        : notMeasured('benchRunThroughput() returns no runsPerSecond'),
    );
  }
}
rows.push(perCpu, twoWorkers, serial);

// Cost per step as a run grows (bench/long-run.ts). An older long-run.ts is a script that
// runs as soon as it is imported, so it is imported only once it exports benchLongRun.
const longRunFile = fileURLToPath(new URL('./long-run.ts', import.meta.url));
const longRunRows = [100, 1_000, 10_000].map((position) => ({
  figure: `a run's cost per step at step ${position.toLocaleString('en')} (hostile document, CPU)`,
  target: position === 100 ? 'the base' : '≤ 1.2× step 100',
  measured: '',
  verdict: '',
}));
if (!/export async function benchLongRun\b/.test(readFileSync(longRunFile, 'utf8'))) {
  for (const row of longRunRows)
    Object.assign(row, notMeasured('bench/long-run.ts exports no benchLongRun() yet'));
} else {
  const longRun = await load('./long-run.js');
  const got =
    typeof longRun === 'string' || typeof longRun.benchLongRun !== 'function'
      ? undefined
      : ((await (longRun.benchLongRun as () => Promise<unknown>)()) as {
          hostile?: { position: number; cpuUs: number; ratio: number }[];
        });
  console.log('');
  for (const [i, row] of longRunRows.entries()) {
    const position = [100, 1_000, 10_000][i]!;
    const at = got?.hostile?.find((h) => h.position === position);
    Object.assign(
      row,
      at
        ? {
            measured: `${at.cpuUs.toFixed(0)} µs (${at.ratio.toFixed(2)}× step 100)`,
            verdict: position === 100 ? '—' : at.ratio <= 1.2 ? 'meets' : 'misses',
          }
        : notMeasured(`benchLongRun() returned no step ${position}`),
    );
  }
}
rows.push(...longRunRows, {
  figure: 'npm test wall time, fresh clone',
  measured: 'measured outside the bench: `time npm test` on a fresh clone',
  target: '≤ 4 min',
  verdict: '—',
});

console.log(
  `issue 18's figures (medians, IQR in brackets; a verdict is "undecided" when the target falls inside the IQR) · load average now ${loadAverage()}`,
);
const width = Math.max(...rows.map((r) => r.figure.length));
for (const r of rows) {
  console.log(`  ${r.figure.padEnd(width)}  ${r.measured}`);
  console.log(`  ${''.padEnd(width)}  target ${r.target}: ${r.verdict}`);
}
