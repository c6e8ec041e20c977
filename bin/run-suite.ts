import type { AgentUnderTest } from '../scenarios/agent.js';
import { availableParallelism } from 'node:os';
import { ResultsWriter, type RunResult } from '../reports/results.js';
import { ReferenceAgent } from '../scenarios/agents/reference.js';
import { FolderLock } from './folder-lock.js';
import { dollars } from './model-cost.js';
import { keptRunProblem } from './kept-runs.js';
import {
  commitPendingSet,
  openPendingSet,
  setDefinition,
  type KeptRunCheck,
  type RemadeRun,
} from './pending-set.js';
import {
  checkCases,
  runCase,
  shardOf,
  suiteAgent,
  suiteSelection,
  type SkippedPlan,
  type SuiteCase,
  type SuiteOptions,
} from './suite.js';
import { UsageError } from './usage-error.js';
import { runInWorkers } from './workers.js';

export interface RunSuiteOptions {
  /** Result set folder: `results.jsonl`, `trajectories/`, `stores/` and `set.json` go here. */
  out: string;
  /**
   * Parallel worker threads (1: in this thread). `auto` (the command's default): this thread
   * for a suite under {@link AUTO_WORKERS_FROM} runs, where starting threads costs more than it
   * saves; else one thread per core but one, up to four ({@link autoWorkers}). Results are the
   * same whatever the number.
   */
  workers?: number | 'auto';
  /** `I/N`: only this deterministic slice of the cases. */
  shard?: string;
  /** Keep the runs already in `out` and make only the missing ones (same options only). */
  resume?: boolean;
  /**
   * Stop once the model spend of the runs this call finished passes this many USD: no new run
   * starts, the finished ones stay in the unfinished set (`resume` continues it).
   */
  maxCostUsd?: number;
  /** Called once the runs to make are known, before the first starts (the cost estimate). */
  beforeRuns?: (runs: number) => void;
  /** Called as each run finishes (in finishing order), after it is on disk. */
  onResult?: (result: RunResult, done: number, total: number) => void;
}

export interface SuiteRun {
  /** Every result of the set, in case order (resumed ones included). */
  results: RunResult[];
  /** Cases this call ran (not skipped as already done). */
  ran: number;
  skipped: number;
  cases: SuiteCase[];
  /** Runs of an unfinished set in `out` that this fresh run replaced. */
  discarded: number;
  /** Finished runs a resume did not keep, their files emptied or cut (a power loss): made again. */
  remade: RemadeRun[];
  /** Fault plans left out because they cannot apply in the suite's `--mode`. */
  notApplicable: SkippedPlan[];
  /** Why the suite stopped before its end (`maxCostUsd`); the set is then left unfinished. */
  stopped?: string;
}

/**
 * Runs a suite into a result set. Every case is built and checked before anything is written.
 * The run then holds the folder's lock and writes into its pending set, each finished run
 * appended (and flushed) the moment it ends, so a suite killed halfway keeps every finished run
 * and `resume` makes only the rest; the folder's previous set stays whole until the new one is
 * complete and committed. With workers, cases run in parallel threads; the records are the same
 * as a serial run's (reports sort by case index), apart from wall-clock figures.
 */
/** How many runs a suite needs before `workers: 'auto'` starts threads. */
export const AUTO_WORKERS_FROM = 300;

/** The most threads `workers: 'auto'` starts. */
const AUTO_WORKERS_MAX = 4;

/**
 * The threads `workers: 'auto'` runs `runs` runs in (1: this thread) on `cores` cores: one per
 * core but one, up to {@link AUTO_WORKERS_MAX}, for a suite of {@link AUTO_WORKERS_FROM} runs or
 * more. The core left over is this thread's: it takes every finished run from the threads and
 * writes its files and record, about a third of a core. So on two cores the suite runs here, in
 * one thread: on a two-core machine, two threads beside this one ran the default suite no
 * faster (12.9–18.0 s against 12.8–15.9 s here, five interleaved pairs) for half as much CPU
 * again (23–32 against 16–19 CPU-seconds), each thread running slower beside the other.
 */
export function autoWorkers(runs: number, cores = availableParallelism()): number {
  if (runs < AUTO_WORKERS_FROM) return 1;
  return Math.max(1, Math.min(cores - 1, AUTO_WORKERS_MAX));
}

function workerCount(workers: number | 'auto' | undefined, runs: number): number {
  return workers === 'auto' ? autoWorkers(runs) : (workers ?? 1);
}

/**
 * How a resume checks each run it would keep (see {@link keptRunProblem}): the store too when
 * the agent is the reference runtime, whose store is a run store at the run's store path (another
 * agent's file there, if any, is its own to read). A run no case of the suite makes is passed,
 * to be refused as such.
 */
function keptRunCheck(agent: AgentUnderTest, cases: ReadonlyMap<string, SuiteCase>): KeptRunCheck {
  const runStore = agent instanceof ReferenceAgent;
  return (run, dir) => {
    const c = cases.get(run.id);
    if (c?.seed !== run.seed) return undefined;
    const store = runStore ? (c.storeKey === undefined ? {} : { key: c.storeKey }) : undefined;
    return keptRunProblem(dir, run, store);
  };
}

export async function runSuite(suite: SuiteOptions, options: RunSuiteOptions): Promise<SuiteRun> {
  const selection = await suiteSelection(suite);
  const agent = await suiteAgent(suite);
  const checked = await checkCases(selection.cases, agent, suite.model);
  const cases = shardOf(selection.cases, options.shard);
  const lock = FolderLock.take(options.out, 'run');
  try {
    const byId = new Map(cases.map((c) => [c.id, c]));
    const pending = openPendingSet(
      options.out,
      setDefinition(suite, options.shard, agent),
      options.resume ?? false,
      options.resume === true ? keptRunCheck(checked, byId) : undefined,
    );
    for (const kept of pending.kept) {
      // Same options, yet another case list: the scenarios changed under the set.
      if (byId.get(kept.id)?.seed !== kept.seed)
        throw new UsageError(
          `--resume: run ${kept.id} (seed ${kept.seed}) of the set in ${options.out} is not a case of this suite any more; run without --resume to replace the set`,
        );
    }
    const finished = new Set(pending.kept.map((r) => r.id));
    const todo = cases.filter((c) => !finished.has(c.id));
    const writer = new ResultsWriter(pending.dir, { fresh: false });
    const results = [...pending.kept];
    let count = 0;
    let spentUsd = 0;
    let stopped: string | undefined;
    const record = (result: RunResult, trajectory: unknown): void => {
      writer.append(result, trajectory);
      results.push(result);
      count++;
      spentUsd += result.figures.costUsd;
      options.onResult?.(result, count, todo.length);
      if (
        options.maxCostUsd !== undefined &&
        spentUsd > options.maxCostUsd &&
        stopped === undefined
      )
        stopped = `stopped: the model spend of the ${String(count)} finished run(s), ${dollars(spentUsd)}, passed --max-cost ${dollars(options.maxCostUsd)}; ${String(todo.length - count)} run(s) not made — the finished ones are kept: rerun with --resume (and a higher --max-cost) to make the rest`;
    };
    options.beforeRuns?.(todo.length);
    try {
      const workers = workerCount(options.workers, todo.length);
      if (workers > 1 && todo.length > 1) {
        await runInWorkers(
          suite,
          todo.map((c) => c.index),
          pending.dir,
          workers,
          options.shard,
          record,
          () => stopped !== undefined,
        );
      } else {
        for (const c of todo) {
          if (stopped !== undefined) break;
          const { result, trajectory } = await runCase(
            c,
            agent,
            pending.dir,
            suite.model,
            suite.live,
          );
          record(result, trajectory);
        }
      }
    } finally {
      writer.close();
    }
    results.sort((a, b) => a.index - b.index);
    const run: SuiteRun = {
      results,
      ran: count,
      skipped: cases.length - todo.length,
      cases,
      discarded: pending.discarded,
      remade: pending.remade,
      notApplicable: selection.skipped,
    };
    // A suite stopped on its spend keeps its pending set for --resume: nothing is committed.
    if (stopped !== undefined) return { ...run, stopped };
    commitPendingSet(options.out);
    return run;
  } finally {
    lock.release();
  }
}
