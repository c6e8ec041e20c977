/**
 * Property-based exploration, held to its figures (printed, never asserted):
 * (a) the reference agent across the library: explored fault plans, counterexamples found;
 * (b) each mutant of the zoo: runs until exploration catches it, on which scenario, and the
 *     size of the shrunk plan;
 * (c) throughput: explored runs per second on the refunds world (in-process crashes), by wall
 *     clock and per CPU-second of this process (all its threads: the honest "per core"), in this
 *     thread and with worker threads judging the plans (`explore --workers`), rounds interleaved.
 *
 * Part (c) always runs: its figures are what {@link benchExplore} returns.
 *
 * `npx tsx bench/explore.ts`; env: BENCH_EXPLORE_RUNS (default 10000), BENCH_MUTANT_RUNS
 * (1000), BENCH_ROUNDS (5), BENCH_WORKERS (2), BENCH_WARMUP (2 rounds of (c), run and not
 * counted), BENCH_SEED (1), BENCH_PARTS (abc: which of (a) and (b) run beside (c)),
 * BENCH_MUTANTS (all, or names separated by commas), BENCH_INVARIANTS (for (b): all built-in
 * ones, or ids separated by commas — to see which invariant catches a mutant).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePlan } from '../explore/describe.js';
import { explore, type ExploreResult, type PlanJudges } from '../explore/explore.js';
import { BUILT_IN_INVARIANTS } from '../explore/invariants.js';
import { EXPECTED_DETECTIONS } from '../graders/matrix.js';
import { ZOO } from '../scenarios/agents/zoo.js';
import { BUILT_IN_SCENARIOS } from '../scenarios/library/index.js';
import type { Scenario } from '../scenarios/scenario.js';
import { exploreWorkers } from '../bin/explore-workers.js';
import { loadAverage, rounds, timed } from './rounds.js';
import { cpuSplit, threadCpu, type CpuSplit } from './thread-cpu.js';
import { fmtSpread, spread, verdictAtLeast, type Spread } from './stats.js';

const TOTAL = Number(process.env.BENCH_EXPLORE_RUNS ?? 10_000);
const MUTANT_RUNS = Number(process.env.BENCH_MUTANT_RUNS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const PARTS = process.env.BENCH_PARTS ?? 'abc';
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const MAX_FAULTS = 3;

const agent = (name: string) => {
  const entry = ZOO.find((a) => a.name === name);
  if (!entry) throw new Error(`no agent ${name}`);
  return entry;
};

/** The reference agent explored on `scenario`: every part's exploration but the agent's own. */
function exploreReference(
  scenario: Scenario,
  runs: number,
  seed: number,
  outDir: string,
  judges?: PlanJudges,
): Promise<ExploreResult> {
  return explore({
    scenario,
    agent: agent('reference'),
    runs,
    seed,
    maxFaults: MAX_FAULTS,
    outDir,
    ...(judges ? { judges } : {}),
  });
}

async function referenceAcrossLibrary(outDir: string): Promise<void> {
  const per = Math.ceil(TOTAL / BUILT_IN_SCENARIOS.length);
  console.log(
    `(a) reference across the library: ${per} plans per scenario, ≤${MAX_FAULTS} faults each, seed ${SEED}`,
  );
  let runs = 0;
  let found = 0;
  const started = performance.now();
  for (const scenario of BUILT_IN_SCENARIOS) {
    const result = await exploreReference(scenario, per, SEED, outDir);
    runs += result.runs;
    const rate = result.runs / (result.elapsedMs / 1_000);
    if (result.kind === 'counterexample') {
      found++;
      console.log(
        `  ${scenario.id.padEnd(28)} COUNTEREXAMPLE after ${result.runs} runs: ${describePlan(result.plan).join(' · ')} — ${result.violations.map((v) => `${v.invariant}: ${v.message}`).join('; ')} (path ${result.path})`,
      );
    } else {
      console.log(
        `  ${scenario.id.padEnd(28)} ${String(result.runs).padStart(6)} plans, none broke an invariant (${rate.toFixed(1)} runs/s)`,
      );
    }
  }
  const seconds = (performance.now() - started) / 1_000;
  console.log(
    `  total: ${runs} explored plans, ${found} counterexample(s), ${seconds.toFixed(0)} s (target: 10,000 plans, none)`,
  );
}

async function mutants(outDir: string): Promise<void> {
  console.log(
    `\n(b) mutants: up to ${MUTANT_RUNS} plans per scenario, scenarios in library order, seed ${SEED}`,
  );
  const only = process.env.BENCH_MUTANTS?.split(',');
  const ids = process.env.BENCH_INVARIANTS?.split(',');
  const invariants = ids ? BUILT_IN_INVARIANTS.filter((i) => ids.includes(i.id)) : undefined;
  if (ids && invariants?.length !== ids.length)
    throw new Error(`BENCH_INVARIANTS: unknown id among ${ids.join(', ')}`);
  if (ids) console.log(`  invariants: ${ids.join(', ')} only`);
  for (const name of Object.keys(EXPECTED_DETECTIONS)) {
    if (only && !only.includes(name)) continue;
    let caught: (ExploreResult & { kind: 'counterexample' }) | undefined;
    let before = 0;
    for (const scenario of BUILT_IN_SCENARIOS) {
      const result = await explore({
        scenario,
        agent: agent(name),
        runs: MUTANT_RUNS,
        seed: SEED,
        maxFaults: MAX_FAULTS,
        outDir,
        ...(invariants ? { invariants } : {}),
      });
      if (result.kind === 'counterexample') {
        caught = result;
        break;
      }
      before += result.runs;
    }
    if (!caught) {
      console.log(
        `  ${name.padEnd(20)} NOT CAUGHT in ${before} plans across ${BUILT_IN_SCENARIOS.length} scenarios`,
      );
      continue;
    }
    console.log(
      `  ${name.padEnd(20)} caught on ${caught.scenarioId} after ${caught.runs} run(s) (${before} on earlier scenarios), shrunk in ${caught.shrinks} to ${caught.plan.faults.length} fault(s): ${describePlan(caught.plan).join(' · ')} → ${[...new Set(caught.violations.map((v) => v.invariant))].join(', ')}`,
    );
  }
  console.log('  (target: each caught within 1,000 runs on some scenario, shrunk to ≤ 2 faults)');
}

/** One way of exploring in part (c): in this thread, or with worker threads judging the plans. */
interface Way {
  readonly label: string;
  readonly pool?: ReturnType<typeof exploreWorkers>;
}

/** One way's round of (c): runs per wall and CPU second, where the CPU went, how busy the threads were. */
interface RoundFigures {
  wall: number;
  cpu: number;
  /** CPU seconds per run: main thread, worker threads, V8's background threads. */
  perRun: CpuSplit;
  /** Cores kept busy on average: all CPU seconds over wall seconds. */
  cores: number;
  /** Each worker thread's share of the round's wall time spent judging rather than waiting. */
  busy: number[];
}

/** One round of (c): every refunds scenario explored `per` plans, one way. */
async function round(
  refunds: readonly Scenario[],
  per: number,
  seed: number,
  outDir: string,
  way: Way,
): Promise<RoundFigures> {
  const cpuBefore = threadCpu();
  const eluBefore = way.pool?.utilization();
  const {
    value: runs,
    wallSeconds,
    cpuSeconds,
  } = await timed(async () => {
    let made = 0;
    for (const scenario of refunds) {
      const result = await exploreReference(scenario, per, seed, outDir, way.pool);
      made += result.runs + (result.kind === 'counterexample' ? result.shrinks : 0);
    }
    return made;
  });
  const used = cpuSplit(
    cpuBefore,
    threadCpu(),
    (way.pool?.threadIds() ?? []).filter((t) => t !== undefined),
  );
  return {
    wall: runs / wallSeconds,
    cpu: runs / cpuSeconds,
    perRun: {
      main: used.main / runs,
      workers: used.workers / runs,
      background: used.background / runs,
    },
    cores: cpuSeconds / wallSeconds,
    busy: way.pool?.utilization(eluBefore).map((u) => u.utilization) ?? [],
  };
}

/** Issue 18's targets for part (c). */
export const TARGET_RUNS_PER_CPU_SECOND = 500;
export const TARGET_TWO_WORKER_SPEEDUP = 1.8;

/** What part (c) measured, median and IQR over rounds. */
export interface ExploreFigures {
  /** Explored runs per CPU-second of this process, exploring in this thread. */
  runsPerCpuSecond: Spread;
  /** Runs per second by wall clock with `BENCH_WORKERS` workers over in this thread, round by round. */
  twoWorkerSpeedup: Spread;
  /**
   * The most `BENCH_WORKERS` workers could give over this thread on as many idle cores, from CPU
   * alone, round by round: the cores times this thread's main-thread CPU per run (its wall time
   * per run at best, V8's background threads running beside it on another core), over all the
   * CPU a run takes with the workers (theirs, V8's background threads', the main thread's).
   * Load inflates wall clocks but hardly this.
   */
  speedupCeiling: Spread;
  /** Seconds from starting the worker threads until all had loaded the harness. */
  poolStartSeconds: number;
}

const ms = (seconds: number) => (seconds * 1_000).toFixed(2);

async function throughput(outDir: string): Promise<ExploreFigures> {
  const refunds = BUILT_IN_SCENARIOS.filter((s) => s.world.name === 'refunds');
  const per = 60;
  console.log(
    `(c) throughput: reference on the ${refunds.length} refunds scenarios, ${per} plans each (in-process crashes), in this thread and with ${WORKERS} worker threads: the same plans each way, rounds interleaved (the order alternating), median (IQR) of ${ROUNDS} rounds after ${WARMUP} warm-up round(s); load ${loadAverage(1)}`,
  );
  // Start-up is timed apart: a thread loads the whole harness once per `explore --workers N`,
  // then judges any number of plans; the rounds measure the judging.
  const poolStarted = performance.now();
  const pool = exploreWorkers({
    agent: { kind: 'zoo', name: 'reference' },
    scenarioFiles: [],
    outDir,
    n: WORKERS,
    here: agent('reference'),
  });
  const ways: Way[] = [{ label: '1 (this thread)' }, { label: `${WORKERS} workers`, pool }];
  let got: RoundFigures[][];
  let poolStartSeconds: number;
  try {
    await pool.ready();
    poolStartSeconds = (performance.now() - poolStarted) / 1_000;
    // Warm-up rounds let each thread's JIT settle (every worker warms up on its own, on its
    // share of the plans); they are run, not counted.
    got = await rounds({ rounds: ROUNDS, warmup: WARMUP }, async (r) => {
      const byWay: RoundFigures[] = [];
      for (const w of r % 2 === 0 ? [0, 1] : [1, 0])
        byWay[w] = await round(refunds, per, SEED + r, outDir, ways[w]!);
      return byWay;
    });
  } finally {
    await pool.close();
  }
  const med = (values: number[]) => spread(values).median;
  const figures: ExploreFigures = {
    runsPerCpuSecond: spread(got.map((g) => g[0]!.cpu)),
    twoWorkerSpeedup: spread(got.map((g) => g[1]!.wall / g[0]!.wall)),
    speedupCeiling: spread(
      got.map((g) => {
        const one = g[0]!.perRun;
        const two = g[1]!.perRun;
        return (WORKERS * one.main) / (two.main + two.workers + two.background);
      }),
    ),
    poolStartSeconds,
  };
  console.log(
    `  worker start-up: ${poolStartSeconds.toFixed(2)} s until ${WORKERS} threads had loaded the harness (paid once per 'faultline explore --workers N', not in the rounds)`,
  );
  ways.forEach((way, w) => {
    const of = (pick: (f: RoundFigures) => number) => med(got.map((g) => pick(g[w]!)));
    const where = [
      `main ${ms(of((f) => f.perRun.main))}`,
      ...(way.pool ? [`workers ${ms(of((f) => f.perRun.workers))}`] : []),
      `V8 background ${ms(of((f) => f.perRun.background))}`,
    ].join(', ');
    const busy = way.pool
      ? ` · workers busy ${way.pool
          .threadIds()
          .map((_, i) => `${(of((f) => f.busy[i] ?? 0) * 100).toFixed(0)}%`)
          .join(', ')}`
      : '';
    console.log(
      `  ${way.label.padEnd(16)} ${fmtSpread(spread(got.map((g) => g[w]!.wall)), 1)} explored runs/s by wall clock · ${fmtSpread(spread(got.map((g) => g[w]!.cpu)), 1)} per CPU-second · CPU ms per run: ${where} · ${of((f) => f.cores).toFixed(2)} cores busy${busy}`,
    );
  });
  console.log(
    `  per CPU-second in this thread: target ≥ ${TARGET_RUNS_PER_CPU_SECOND}: ${verdictAtLeast(figures.runsPerCpuSecond, TARGET_RUNS_PER_CPU_SECOND)}`,
  );
  console.log(
    `  ${WORKERS} workers / 1: ${fmtSpread(figures.twoWorkerSpeedup, 2, '×')} by wall clock, round by round (target ≥ ${TARGET_TWO_WORKER_SPEEDUP}× with two workers, on two idle cores: ${verdictAtLeast(figures.twoWorkerSpeedup, TARGET_TWO_WORKER_SPEEDUP)})`,
  );
  console.log(
    `  ceiling from CPU alone: ${fmtSpread(figures.speedupCeiling, 2, '×')} (${WORKERS} × this thread's main-thread CPU per run ÷ all CPU per run with ${WORKERS} workers: the most ${WORKERS} idle cores allow, since one thread's exploration already keeps V8's background threads busy beside it)`,
  );
  return figures;
}

/**
 * Prints part (c) and whichever of (a) and (b) `parts` names (default: BENCH_PARTS, or all),
 * and returns part (c)'s figures.
 */
export async function benchExplore(options: { parts?: string } = {}): Promise<ExploreFigures> {
  const parts = options.parts ?? PARTS;
  const outDir = mkdtempSync(join(tmpdir(), 'faultline-bench-explore-'));
  try {
    console.log(`exploration benchmark · node ${process.version} · ${new Date().toISOString()}\n`);
    const figures = await throughput(outDir);
    if (parts.includes('b')) await mutants(outDir);
    if (parts.includes('a')) {
      console.log('');
      await referenceAcrossLibrary(outDir);
    }
    return figures;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await benchExplore();
