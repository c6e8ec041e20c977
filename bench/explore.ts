/**
 * Property-based exploration, held to its figures (printed, never asserted):
 * (a) the reference agent across the library: explored fault plans, counterexamples found;
 * (b) each mutant of the zoo: runs until exploration catches it, on which scenario, and the
 *     size of the shrunk plan;
 * (c) throughput: explored runs per second on the refunds world (in-process crashes), by wall
 *     clock and per CPU-second of this process (all its threads: the honest "per core"), in this
 *     thread and with worker threads judging the plans (`explore --workers`), rounds interleaved.
 *
 * `npx tsx bench/explore.ts`; env: BENCH_EXPLORE_RUNS (default 10000), BENCH_MUTANT_RUNS
 * (1000), BENCH_ROUNDS (5), BENCH_WORKERS (2), BENCH_WARMUP (1 round of (c), run and not counted), BENCH_SEED (1),
 * BENCH_PARTS (abc), BENCH_MUTANTS (all, or names separated by commas), BENCH_INVARIANTS (for
 * (b): all built-in ones, or ids separated by commas — to see which invariant catches a mutant).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePlan } from '../explore/describe.js';
import { explore, type ExploreResult, type PlanJudges } from '../explore/explore.js';
import { BUILT_IN_INVARIANTS } from '../explore/invariants.js';
import { EXPECTED_DETECTIONS } from '../graders/matrix.js';
import { ZOO } from '../scenarios/agents/zoo.js';
import { BUILT_IN_SCENARIOS } from '../scenarios/library/index.js';
import type { Scenario } from '../scenarios/scenario.js';
import { exploreWorkers } from '../bin/explore-workers.js';
import { withSpread } from './quartiles.js';

const TOTAL = Number(process.env.BENCH_EXPLORE_RUNS ?? 10_000);
const MUTANT_RUNS = Number(process.env.BENCH_MUTANT_RUNS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const PARTS = process.env.BENCH_PARTS ?? 'abc';
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const MAX_FAULTS = 3;

const agent = (name: string) => {
  const entry = ZOO.find((a) => a.name === name);
  if (!entry) throw new Error(`no agent ${name}`);
  return entry;
};

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
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
    const result = await explore({
      scenario,
      agent: agent('reference'),
      runs: per,
      seed: SEED,
      maxFaults: MAX_FAULTS,
      outDir,
    });
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
  readonly judges?: PlanJudges;
}

/** One round of (c): every refunds scenario explored `per` plans; runs and wall and CPU time. */
async function round(
  refunds: readonly Scenario[],
  per: number,
  seed: number,
  outDir: string,
  way: Way,
): Promise<{ wall: number; cpu: number }> {
  let runs = 0;
  const since = process.cpuUsage();
  const started = performance.now();
  for (const scenario of refunds) {
    const result = await explore({
      scenario,
      agent: agent('reference'),
      runs: per,
      seed,
      maxFaults: MAX_FAULTS,
      outDir,
      ...(way.judges ? { judges: way.judges } : {}),
    });
    runs += result.runs + (result.kind === 'counterexample' ? result.shrinks : 0);
  }
  return { wall: runs / ((performance.now() - started) / 1_000), cpu: runs / cpuSeconds(since) };
}

async function throughput(outDir: string): Promise<void> {
  const refunds = BUILT_IN_SCENARIOS.filter((s) => s.world.name === 'refunds');
  const per = 60;
  console.log(
    `\n(c) throughput: reference on the ${refunds.length} refunds scenarios, ${per} plans each (in-process crashes), in this thread and with ${WORKERS} worker threads, rounds interleaved, median (IQR) of ${ROUNDS} rounds after ${WARMUP} warm-up round(s); load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const pool = exploreWorkers({
    agent: { kind: 'zoo', name: 'reference' },
    scenarioFiles: [],
    outDir,
    n: WORKERS,
  });
  const ways: Way[] = [{ label: '1 (this thread)' }, { label: `${WORKERS} workers`, judges: pool }];
  const figures = ways.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
  const ratios: number[] = [];
  try {
    // Warm-up rounds load the modules (and start the threads) and let the JIT settle; they are
    // run, not counted. Each round runs both ways, one after the other, the order alternating.
    for (let r = -WARMUP; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      const got: { wall: number; cpu: number }[] = [];
      for (const w of order) got[w] = await round(refunds, per, SEED + r, outDir, ways[w]!);
      if (r < 0) continue;
      got.forEach((g, w) => {
        figures[w]!.wall.push(g.wall);
        figures[w]!.cpu.push(g.cpu);
      });
      ratios.push(got[1]!.wall / got[0]!.wall);
    }
  } finally {
    await pool.close();
  }
  ways.forEach((way, w) => {
    console.log(
      `  ${way.label.padEnd(16)} ${withSpread(figures[w]!.wall)} explored runs/s by wall clock · ${withSpread(figures[w]!.cpu)} per CPU-second (target ≥ 500 per CPU-second)`,
    );
  });
  console.log(
    `  ${WORKERS} workers / 1: ${withSpread(ratios, 2)}× by wall clock, round by round (target ≥ 1.8× with two workers, on two idle cores)`,
  );
}

export async function benchExplore(): Promise<void> {
  const outDir = mkdtempSync(join(tmpdir(), 'faultline-bench-explore-'));
  try {
    console.log(`exploration benchmark · node ${process.version} · ${new Date().toISOString()}\n`);
    if (PARTS.includes('c')) await throughput(outDir);
    if (PARTS.includes('b')) await mutants(outDir);
    if (PARTS.includes('a')) {
      console.log('');
      await referenceAcrossLibrary(outDir);
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await benchExplore();
