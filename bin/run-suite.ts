import { repairResults, ResultsWriter, type RunResult } from '../reports/results.js';
import {
  runCase,
  shardOf,
  suiteSelection,
  type SkippedPlan,
  type SuiteCase,
  type SuiteOptions,
} from './suite.js';
import { runInWorkers } from './workers.js';

export interface RunSuiteOptions {
  /** Result set folder: `results.jsonl`, `trajectories/` and `stores/` go here. */
  out: string;
  /** Parallel worker threads (1: in this thread). */
  workers?: number;
  /** `I/N`: only this deterministic slice of the cases. */
  shard?: string;
  /** Keep the runs already in `out` and make only the missing ones. */
  resume?: boolean;
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
  /** Fault plans left out because they cannot apply in the suite's `--mode`. */
  notApplicable: SkippedPlan[];
}

/**
 * Runs a suite into a result set: each finished run is appended (and flushed) the moment it
 * ends, so a suite killed halfway keeps every finished run and `resume` makes only the rest.
 * With workers, cases run in parallel threads; the records are the same as a serial run's
 * (reports sort by case index), apart from wall-clock figures.
 */
export async function runSuite(suite: SuiteOptions, options: RunSuiteOptions): Promise<SuiteRun> {
  const selection = await suiteSelection(suite);
  const cases = shardOf(selection.cases, options.shard);
  const done = options.resume ? repairResults(options.out) : [];
  const finished = new Set(done.map((r) => r.id));
  const todo = cases.filter((c) => !finished.has(c.id));
  const writer = new ResultsWriter(options.out, { fresh: !options.resume });
  const results = [...done];
  let count = 0;
  const record = (result: RunResult, trajectory: unknown): void => {
    writer.append(result, trajectory);
    results.push(result);
    count++;
    options.onResult?.(result, count, todo.length);
  };
  try {
    if ((options.workers ?? 1) > 1 && todo.length > 1) {
      await runInWorkers(
        suite,
        todo.map((c) => c.index),
        options.out,
        options.workers ?? 1,
        options.shard,
        record,
      );
    } else {
      for (const c of todo) {
        const { result, trajectory } = await runCase(c, suite.agent, options.out);
        record(result, trajectory);
      }
    }
  } finally {
    writer.close();
  }
  results.sort((a, b) => a.index - b.index);
  return {
    results,
    ran: count,
    skipped: cases.length - todo.length,
    cases,
    notApplicable: selection.skipped,
  };
}
