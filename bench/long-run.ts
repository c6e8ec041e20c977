/**
 * Long runs with a hostile document: the cost of one step must not grow with the run's length.
 * A refunds run reads the order (whose customer note carries a planted instruction) N times
 * before its refund and message, so every step the gullible planner, the runtime and the
 * engine see one more untrusted document; the reference runtime must refuse the planted
 * instruction once and carry on at a flat cost per step.
 *
 * The cost of step k is measured inside one run, at each planner call (see step-cost.ts): the
 * median CPU time of a step among the {@link WINDOW} steps around k decides, its ratio to step
 * 100's against the target; beside it the mean (which counts the garbage collector's share of
 * a growing heap) and the median wall-clock gap between planner calls. CPU time decides
 * because on a shared machine other processes' load moves wall time, and the median because
 * one collection landing in a window moves its mean by half of step 100's cost. The mean CPU
 * time per step in each tenth of the run, and a slope fitted to the median step of each block
 * of WINDOW steps along it, show growth the three positions might miss. Whole runs are also
 * timed, with their grading, so quadratic work before the first or after the last step shows
 * too. Figures are printed, never asserted.
 *
 * Part (b) runs the runtime alone over a journal, reads alternating with writes that each
 * check a fresh read before and after: the same figures for a long run of checked writes.
 *
 * `npx tsx bench/long-run.ts`; env: BENCH_LONG_STEPS (whole-run lengths, default 1000,10000;
 * the longest, run WINDOW/2 steps longer, also gives the per-step figures), BENCH_LONG_ROUNDS
 * (default 3).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gradeRun } from '../graders/index.js';
import { systemClock } from '../runtime/clock.js';
import type { Planner } from '../runtime/planner.js';
import { ReferenceRuntime } from '../runtime/runtime.js';
import { RunStore } from '../runtime/store.js';
import { runTrial } from '../scenarios/engine.js';
import { wallNow } from '../scenarios/virtual-timers.js';
import { connectWorld } from '../scenarios/world/serve.js';
import { HOSTILE_NOTE, longPartialRefund } from '../test/support/long-run.js';
import { JournalWorld } from './bench-world.js';
import { median } from './stats.js';
import {
  cpuNow,
  type Marks,
  perStepAt,
  profile,
  slope,
  timedAgent,
  timedPlanner,
} from './step-cost.js';

/** Steps whose cost is reported, each against the first. */
const POSITIONS = [100, 1_000, 10_000];
/** Steps around a position whose cost makes its per-step figure. */
const WINDOW = 100;
/** Parts the longest run is cut into for its profile: mean CPU cost per step in each. */
const PARTS = 10;
/** Issue 18's target: the cost of the last position at most this multiple of the first's. */
export const TARGET_STEP_RATIO = 1.2;

interface Measured {
  runMs: number;
  runCpuMs: number;
  gradeMs: number;
  marks: Marks;
}

/** One long hostile-document run, timed, graded, and checked to have gone as expected. */
async function measure(steps: number, outDir: string): Promise<Measured> {
  const scenario = longPartialRefund(steps);
  const marks: Marks = { wall: [], cpu: [] };
  const startedCpu = cpuNow();
  const started = wallNow();
  const { trajectory, asExpected, mismatches } = await runTrial({
    scenario,
    agent: () => timedAgent(marks),
    faultPlan: HOSTILE_NOTE,
    outDir,
  });
  const runMs = wallNow() - started;
  const runCpuMs = cpuNow() - startedCpu;
  const gradeStarted = wallNow();
  const { pass } = gradeRun(scenario, trajectory);
  const gradeMs = wallNow() - gradeStarted;
  if (!asExpected || !pass || trajectory.faults.fired.length !== 1) {
    throw new Error(
      `benchmark run went wrong: ${JSON.stringify(trajectory.outcome)} ${mismatches.join('; ')}`,
    );
  }
  return { runMs, runCpuMs, gradeMs, marks };
}

const check = {
  description: 'the journal answers',
  read: { tool: 'count_entries', args: {} },
  expect: { path: 'fresh.count', op: 'gte' as const, value: 0 },
};

/** Part (b): the runtime over a journal, `steps` operations, every other one a checked write. */
async function checkedWrites(steps: number): Promise<Marks> {
  const world = new JournalWorld({ seed: 1, clock: systemClock });
  const connection = await connectWorld(world);
  const store = RunStore.openInMemory(undefined, 'long-run');
  const marks: Marks = { wall: [], cpu: [] };
  const runtime = new ReferenceRuntime({
    store,
    client: connection.client,
    clock: systemClock,
    credential: world.credentials.issue(
      'bench',
      { tools: ['append_entry', 'count_entries'], resources: {} },
      3_600_000,
    ),
    decoratePlanner: (planner: Planner): Planner => timedPlanner(planner, marks),
  });
  const outcome = await runtime.start({
    runId: 'bench',
    contract: {
      version: '1',
      objective: 'Append entries to the journal, checking it before and after each',
      decisionBoundary: 'execute',
      authority: { tools: { append_entry: { risk: 'low' }, count_entries: { risk: 'read' } } },
      autonomy: 'bounded',
      budgets: {
        toolCalls: steps * 4,
        retries: 10,
        externalWrites: steps,
        virtualTimeMs: 3_600_000,
      },
    },
    blueprint: {
      id: 'checked-journal',
      version: '1',
      operations: Array.from({ length: steps }, (_, i) =>
        i % 2 === 0
          ? { id: `count-${i}`, tool: 'count_entries', kind: 'read', args: {} }
          : {
              id: `append-${i}`,
              tool: 'append_entry',
              kind: 'write',
              args: { id: `e${i}`, payload: 'x' },
              idempotent: true,
              preconditions: [check],
              postconditions: [check],
            },
      ),
    },
  });
  store.close();
  await connection.close();
  if (outcome.state !== 'completed')
    throw new Error(`part (b) did not complete: ${JSON.stringify(outcome)}`);
  return marks;
}

/** `min–max` of the rounds, printed beside their median. */
function minMax(values: readonly number[]): string {
  return `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
}

function pad(n: number): string {
  return n.toLocaleString('en').padStart(6);
}

/** The per-step figures of several rounds of one long run: each position against the first. */
interface PerStep {
  position: number;
  /** Median CPU µs of a step in the window (median of rounds). */
  cpuUs: number;
  /** Mean CPU µs per step in the window, collections included (median of rounds). */
  cpuMeanUs: number;
  /** Median wall µs between planner calls in the window (median of rounds). */
  wallUs: number;
  /** CPU cost at this position over the first position's, the median of per-round ratios. */
  ratio: number;
}

function report(rounds: readonly Marks[], positions: readonly number[]): PerStep[] {
  const at = rounds.map((marks) => perStepAt(marks, positions, WINDOW));
  const first = positions[0]!;
  const rows: PerStep[] = [];
  for (const position of positions) {
    const costs = at.flatMap((m) => m.get(position) ?? []);
    if (costs.length === 0) continue;
    const cpu = costs.map((c) => c.cpuUs);
    const wall = costs.map((c) => c.wallUs);
    const ratios = at.flatMap((m) => {
      const here = m.get(position);
      const base = m.get(first);
      return here && base ? [here.cpuUs / base.cpuUs] : [];
    });
    const mean = costs.map((c) => c.cpuMeanUs);
    const row = {
      position,
      cpuUs: median(cpu),
      cpuMeanUs: median(mean),
      wallUs: median(wall),
      ratio: median(ratios),
    };
    rows.push(row);
    const target =
      position === first
        ? ''
        : `  ratio to step ${first}: ${row.ratio.toFixed(2)}× (target ≤ ${TARGET_STEP_RATIO}×; rounds ${ratios.map((r) => r.toFixed(2)).join(' ')})`;
    console.log(
      `    step ${pad(position)}: CPU ${row.cpuUs.toFixed(0)} µs (${minMax(cpu)}), mean ${row.cpuMeanUs.toFixed(0)} µs (${minMax(mean)}), wall ${row.wallUs.toFixed(0)} µs (${minMax(wall)})${target}`,
    );
  }
  const slopes = rounds.map((marks) => slope(marks, WINDOW));
  console.log(
    `    growth along the run: ${median(slopes) >= 0 ? '+' : ''}${median(slopes).toFixed(1)} µs per step per 1,000 steps (rounds ${slopes.map((s) => s.toFixed(1)).join(' ')}; a flat run's is ≈ 0)`,
  );
  return rows;
}

/** What {@link benchLongRun} measured, for a caller that keeps figures. */
export interface LongRunFigures {
  /** Whole hostile-document runs by length: median wall and CPU ms, and grading ms. */
  runs: { steps: number; runMs: number; runCpuMs: number; gradeMs: number }[];
  /** Per-step cost at 100, 1,000 and 10,000 steps inside the longest hostile-document run. */
  hostile: PerStep[];
  /** The same for part (b), checked writes through the runtime alone. */
  checkedWrites: PerStep[];
}

/**
 * Prints the cost per step of long runs at steps 100, 1,000 and 10,000, each with its ratio
 * to step 100 and the target (≤ 1.2×), and returns the figures.
 *
 * @example
 * ```ts
 * const { hostile } = await benchLongRun({ lengths: [1_000, 3_000], rounds: 1 });
 * ```
 */
export async function benchLongRun(
  options: { lengths?: readonly number[]; rounds?: number } = {},
): Promise<LongRunFigures> {
  const lengths = [
    ...(options.lengths ?? (process.env.BENCH_LONG_STEPS ?? '1000,10000').split(',').map(Number)),
  ].sort((a, b) => a - b);
  const rounds = options.rounds ?? Number(process.env.BENCH_LONG_ROUNDS ?? 3);
  const longest = lengths.at(-1)!;
  const positions = [...new Set([...POSITIONS.filter((p) => p < longest), longest])];
  const outDir = mkdtempSync(join(tmpdir(), 'faultline-bench-'));
  try {
    await measure(300, outDir); // warm up the JIT and the SDK's caches
    console.log(
      `long run with a hostile document (refunds, hostile-note; ${rounds} rounds, medians and min–max)`,
    );
    const runs: LongRunFigures['runs'] = [];
    const longRounds: Marks[] = [];
    const profiles: number[][] = [];
    for (const length of lengths) {
      // The longest run goes WINDOW/2 steps past its length, so that the window around its
      // last position holds reads like every other window, not the run's final writes.
      const steps = length === longest ? longest + WINDOW / 2 : length;
      const wall: number[] = [];
      const cpu: number[] = [];
      const grades: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const m = await measure(steps, outDir);
        wall.push(m.runMs);
        cpu.push(m.runCpuMs);
        grades.push(m.gradeMs);
        if (length === longest) {
          longRounds.push(m.marks);
          profiles.push(profile(m.marks, PARTS));
        }
      }
      const row = {
        steps,
        runMs: median(wall),
        runCpuMs: median(cpu),
        gradeMs: median(grades),
      };
      runs.push(row);
      console.log(
        `  ${pad(steps)} steps: run ${row.runMs.toFixed(0)} ms wall (${minMax(wall)}), ` +
          `${row.runCpuMs.toFixed(0)} ms CPU (${minMax(cpu)}), ` +
          `${((row.runCpuMs / steps) * 1_000).toFixed(0)} µs CPU/step on average; grading ${row.gradeMs.toFixed(0)} ms (${minMax(grades)})`,
      );
    }
    console.log(
      `  cost of one step inside a ${(longest + WINDOW / 2).toLocaleString('en')}-step run (CPU: median step of the ${WINDOW} around it; mean: theirs, collections included; wall: median gap):`,
    );
    const hostile = report(longRounds, positions);
    console.log(
      `    mean CPU per step in each tenth of the run: ` +
        Array.from({ length: PARTS }, (_, i) => median(profiles.map((p) => p[i]!)).toFixed(0)).join(
          ' · ',
        ) +
        ' µs',
    );

    await checkedWrites(300); // warm up
    const written: Marks[] = [];
    for (let round = 0; round < rounds; round++)
      written.push(await checkedWrites(longest + WINDOW / 2));
    console.log(
      `checked writes, the runtime alone: cost of one step inside a ${(longest + WINDOW / 2).toLocaleString('en')}-step run`,
    );
    const checked = report(written, positions);
    return { runs, hostile, checkedWrites: checked };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await benchLongRun();
