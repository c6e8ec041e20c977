/**
 * Long runs with a hostile document: the cost of one step must not grow with the run's length.
 * A refunds run reads the order (whose customer note carries a planted instruction) N times
 * before its refund and message, so every step the gullible planner, the runtime and the
 * engine see one more untrusted document; the reference runtime must refuse the planted
 * instruction once and carry on at a flat cost per step.
 *
 * Per-step cost at step k is the median time between consecutive planner calls in a window
 * around k, measured inside one run; a run of the longest length gives every position. Whole
 * runs are also timed, with their grading, so quadratic work at the end of a run shows too.
 * Figures are printed, never asserted.
 *
 * Part (b) runs the runtime alone over a journal, reads alternating with writes that each
 * check a fresh read before and after: the same figures for a long run of checked writes.
 *
 * `npx tsx bench/long-run.ts`; env: BENCH_STEPS (lengths, default 100,1000,3000), BENCH_ROUNDS
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
import type { AgentRun, AgentUnderTest } from '../scenarios/agent.js';
import { ReferenceAgent } from '../scenarios/agents/reference.js';
import { runTrial } from '../scenarios/engine.js';
import { connectWorld } from '../scenarios/world/serve.js';
import { HOSTILE_NOTE, longPartialRefund } from '../test/support/long-run.js';
import { JournalWorld } from './bench-world.js';
import { median } from './stats.js';

const LENGTHS = (process.env.BENCH_STEPS ?? '100,1000,3000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Steps on each side of a position whose gaps make its per-step figure. */
const WINDOW = 50;
/** Parts the longest run is cut into for its profile: mean cost per step in each. */
const PARTS = 10;

/** The reference agent, with a stopwatch on its planner: one mark per proposal. */
function timedAgent(marks: number[]): AgentUnderTest {
  const inner = new ReferenceAgent();
  const timed = (run: AgentRun): AgentRun => ({
    ...run,
    decoratePlanner: (planner: Planner): Planner => {
      const decorated = run.decoratePlanner ? run.decoratePlanner(planner) : planner;
      return {
        get versions() {
          return decorated.versions;
        },
        propose: (context) => {
          marks.push(performance.now());
          return decorated.propose(context);
        },
      };
    },
  });
  return {
    name: inner.name,
    start: (run) => inner.start(timed(run)),
    resume: (run) => inner.resume(timed(run)),
    records: (path, runId) => inner.records(path, runId),
    discard: () => {
      inner.discard();
    },
  };
}

interface Measured {
  runMs: number;
  gradeMs: number;
  /** Per-step cost (µs) at each position asked for that the run reached. */
  at: Map<number, number>;
  /** Mean cost per step (µs) in each tenth of the run. */
  parts: number[];
}

async function measure(steps: number, outDir: string, positions: number[]): Promise<Measured> {
  const scenario = longPartialRefund(steps);
  const marks: number[] = [];
  const started = performance.now();
  const { trajectory, asExpected, mismatches } = await runTrial({
    scenario,
    agent: () => timedAgent(marks),
    faultPlan: HOSTILE_NOTE,
    outDir,
  });
  const runMs = performance.now() - started;
  const gradeStarted = performance.now();
  const { pass } = gradeRun(scenario, trajectory);
  const gradeMs = performance.now() - gradeStarted;
  if (!asExpected || !pass || trajectory.faults.fired.length !== 1) {
    throw new Error(
      `benchmark run went wrong: ${JSON.stringify(trajectory.outcome)} ${mismatches.join('; ')}`,
    );
  }
  const at = perStepAt(marks, positions);
  const parts: number[] = [];
  const size = Math.floor((marks.length - 1) / PARTS);
  for (let part = 0; part < PARTS && size > 0; part++) {
    const from = part * size;
    parts.push(((marks[from + size]! - marks[from]!) / size) * 1_000);
  }
  return { runMs, gradeMs, at, parts };
}

function spread(values: readonly number[]): string {
  return `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
}

/** Per-step cost (µs) at `positions` from one run's proposal marks: median gap of ±WINDOW. */
function perStepAt(marks: readonly number[], positions: readonly number[]): Map<number, number> {
  const at = new Map<number, number>();
  for (const position of positions) {
    const from = Math.max(1, position - WINDOW);
    const to = Math.min(marks.length - 1, position + WINDOW);
    if (position > marks.length || to <= from) continue;
    const gaps: number[] = [];
    for (let i = from; i <= to; i++) gaps.push((marks[i]! - marks[i - 1]!) * 1_000);
    at.set(position, median(gaps));
  }
  return at;
}

const check = {
  description: 'the journal answers',
  read: { tool: 'count_entries', args: {} },
  expect: { path: 'fresh.count', op: 'gte' as const, value: 0 },
};

/** Part (b): the runtime over a journal, `steps` operations, every other one a checked write. */
async function checkedWrites(steps: number): Promise<number[]> {
  const world = new JournalWorld({ seed: 1, clock: systemClock });
  const connection = await connectWorld(world);
  const store = RunStore.openInMemory(undefined, 'long-run');
  const marks: number[] = [];
  const runtime = new ReferenceRuntime({
    store,
    client: connection.client,
    clock: systemClock,
    credential: world.credentials.issue(
      'bench',
      { tools: ['append_entry', 'count_entries'], resources: {} },
      3_600_000,
    ),
    decoratePlanner: (planner: Planner): Planner => ({
      versions: planner.versions,
      propose: (context) => {
        marks.push(performance.now());
        return planner.propose(context);
      },
    }),
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

const outDir = mkdtempSync(join(tmpdir(), 'faultline-bench-'));
try {
  const positions = [...new Set([100, ...LENGTHS])].sort((a, b) => a - b);
  const longest = Math.max(...LENGTHS);
  await measure(100, outDir, []); // warm up the JIT and the SDK's caches
  console.log(
    `(a) long run with a hostile document (refunds, hostile-note; ${ROUNDS} rounds, median and min–max)`,
  );
  const perStep = new Map<number, number[]>(positions.map((p) => [p, []]));
  const profiles: number[][] = [];
  for (const steps of LENGTHS) {
    const runs: number[] = [];
    const grades: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const m = await measure(steps, outDir, steps === longest ? positions : []);
      runs.push(m.runMs);
      grades.push(m.gradeMs);
      for (const [p, us] of m.at) perStep.get(p)!.push(us);
      if (steps === longest) profiles.push(m.parts);
    }
    console.log(
      `  ${String(steps).padStart(6)} steps: run ${median(runs).toFixed(0)} ms (${spread(runs)}), ` +
        `${((median(runs) / steps) * 1_000).toFixed(0)} µs/step on average; grading ${median(grades).toFixed(0)} ms (${spread(grades)})`,
    );
  }
  console.log(`  per-step cost inside one ${longest}-step run (median gap of ±${WINDOW} steps):`);
  const base = median(perStep.get(100)!);
  for (const [p, values] of perStep) {
    const us = median(values);
    console.log(
      `    step ${String(p).padStart(6)}: ${us.toFixed(0)} µs (${spread(values)})  ratio to step 100: ${(us / base).toFixed(2)}×`,
    );
  }
  console.log(
    `  mean cost per step in each tenth of the ${longest}-step run (median of rounds): ` +
      Array.from({ length: PARTS }, (_, i) => median(profiles.map((p) => p[i]!)).toFixed(0)).join(
        ' · ',
      ) +
      ' µs',
  );

  await checkedWrites(100); // warm up
  const written = new Map<number, number[]>(positions.map((p) => [p, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const marks = await checkedWrites(longest);
    for (const [p, us] of perStepAt(marks, positions)) written.get(p)!.push(us);
  }
  console.log(
    `(b) checked writes, the runtime alone: per-step cost inside one ${longest}-step run`,
  );
  const writeBase = median(written.get(100)!);
  for (const [p, values] of written) {
    const us = median(values);
    console.log(
      `    step ${String(p).padStart(6)}: ${us.toFixed(0)} µs (${spread(values)})  ratio to step 100: ${(us / writeBase).toFixed(2)}×`,
    );
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
