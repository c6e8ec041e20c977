import type { EventLoopUtilization } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { JudgedPlan } from '../explore/explore.js';
import type { FaultPlan } from '../faults/catalog.js';
import { ModelReplayMissError, type ModelReplayMissData } from '../recordings/replay-model.js';
import { builtDistEntry } from '../scenarios/built-dist.js';
import type { RunResult } from '../reports/results.js';
import type { AgentSource } from './agent-source.js';
import type { SuiteOptions } from './suite.js';

/**
 * What a worker is started with: the cases of a suite (`faultline run --workers N`), or the
 * plans of an exploration (`faultline explore --workers N`). Plain data: a worker rebuilds the
 * agent and the scenarios from it, since functions do not cross into a thread.
 */
export type WorkerJob =
  | { kind: 'suite'; suite: SuiteOptions; out: string }
  | { kind: 'explore'; agent: AgentSource; scenarioFiles: readonly string[]; outDir: string };

/** One plan of an exploration to judge, as `judgePlan` would with the built-in invariants. */
export interface PlanTask {
  scenarioId: string;
  plan: FaultPlan;
  worldSeed: number;
  witness?: boolean;
}

/** What the main thread hands a worker: a case by index, or a plan to judge. */
export type WorkerTask = { kind: 'case'; index: number } | { kind: 'plan'; task: PlanTask };

export type WorkerReply =
  | { kind: 'result'; result: RunResult; trajectory: unknown }
  /**
   * A judged plan. Only a plan that broke an invariant carries its judgement: a passing one is
   * all most plans are, and its trajectory is not worth copying across threads.
   */
  | { kind: 'judged'; violations: number; judged?: JudgedPlan }
  /** `miss`: a model cassette miss, rebuilt in the main thread to stop the suite the same way. */
  | { kind: 'error'; index: number; message: string; miss?: ModelReplayMissData }
  /** Loaded and waiting; `thread`: its OS thread id where the system tells it (Linux), for CPU accounting. */
  | { kind: 'idle'; thread?: number };

const FROM_SOURCES = import.meta.url.endsWith('.ts');

/**
 * Run from the sources, a worker needs tsx before it can load worker-main.ts (worker.js registers
 * it); the built package's worker-main.js runs on plain Node.
 */
const WORKER_ENTRY = FROM_SOURCES ? './worker.js' : './worker-main.js';

/**
 * The script a job's threads run: this copy's worker, or, run from the sources for a job that
 * loads nothing of the user's (a zoo agent, no scenario file), the build `FAULTLINE_BUILT_DIST`
 * names (see {@link builtDistEntry}): a thread then loads plain JavaScript instead of every
 * source through tsx's loader. A user's module imports the sources in a checkout, and a build
 * beside them would load the harness twice.
 */
export function workerEntry(job: WorkerJob): URL {
  const agent = job.kind === 'suite' ? job.suite.agentSource : job.agent;
  const files = job.kind === 'suite' ? job.suite.scenarioFiles : job.scenarioFiles;
  const own = (agent === undefined || agent.kind === 'zoo') && files.length === 0;
  const built = own ? builtDistEntry(FROM_SOURCES, 'bin/worker-main.js') : undefined;
  return built === undefined ? new URL(WORKER_ENTRY, import.meta.url) : pathToFileURL(built);
}

/**
 * One worker thread and the tasks it has in hand: the one it works on and those queued behind
 * it. The thread does them one at a time, in the order sent, so its answers come back in that
 * order too.
 */
class Slot {
  readonly ready: Promise<void>;
  /** The thread's OS id, once it is ready and where the system tells it. */
  thread: number | undefined;
  private readonly pending: { resolve: (r: WorkerReply) => void; reject: (e: unknown) => void }[] =
    [];
  private failure: Error | undefined;

  constructor(readonly worker: Worker) {
    let started: () => void = () => undefined;
    let refused: (e: unknown) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      refused = reject;
    });
    // Settled either way before anyone awaits it: an unawaited rejection must not escape.
    this.ready.catch(() => undefined);
    worker.on('message', (reply: WorkerReply) => {
      if (reply.kind === 'idle') {
        this.thread = reply.thread;
        started();
        return;
      }
      this.pending.shift()?.resolve(reply);
    });
    const fail = (cause: unknown): void => {
      const error = cause instanceof Error ? cause : new Error(String(cause));
      this.failure ??= error;
      refused(error);
      for (const pending of this.pending.splice(0)) pending.reject(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      fail(new Error(`a worker thread exited (code ${code}) before its work was done`));
    });
  }

  send(task: WorkerTask): Promise<WorkerReply> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.worker.postMessage(task);
    });
  }
}

/**
 * `n` worker threads started once for a job and kept for as many batches of tasks as the job
 * has (an exploration hands them one scenario's plans after another): a thread costs a module
 * load, far more than a run.
 *
 * @example
 * ```ts
 * const pool = new WorkerPool({ kind: 'suite', suite, out }, 2);
 * try {
 *   await pool.run([{ kind: 'case', index: 0 }], (reply) => console.log(reply.kind));
 * } finally {
 *   await pool.close();
 * }
 * ```
 */
export class WorkerPool {
  private readonly slots: Slot[];
  private readonly inHand: number;
  /** Whether any thread has loaded its job yet. */
  private started = false;
  private closed = false;

  /**
   * `inHand`: how many tasks each thread holds at once (default 1). With 2, the next task is
   * already queued in the thread when it finishes one, so it never waits on the main thread —
   * which, on a machine with as many cores as threads, is itself waiting for a core. The cost:
   * once `stop` says so, up to `inHand` tasks per thread are still finished.
   */
  constructor(job: WorkerJob, n: number, options: { inHand?: number } = {}) {
    this.inHand = Math.max(1, options.inHand ?? 1);
    this.slots = Array.from(
      { length: Math.max(1, n) },
      () => new Slot(new Worker(workerEntry(job), { workerData: job })),
    );
    for (const slot of this.slots)
      slot.ready.then(
        () => {
          this.started = true;
        },
        () => undefined,
      );
  }

  get size(): number {
    return this.slots.length;
  }

  /** Resolves once every thread has loaded its job and waits for tasks (rejects if one failed to). */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.ready));
  }

  /** Each thread's OS thread id, where known (after {@link ready}): its CPU can be read from /proc. */
  threadIds(): (number | undefined)[] {
    return this.slots.map((s) => s.thread);
  }

  /**
   * Each thread's event-loop utilization since `since` (or since it started): how much of the
   * time it was busy rather than waiting for a task. Benchmarks print it to show where the
   * threads waited.
   */
  utilization(since?: readonly EventLoopUtilization[]): EventLoopUtilization[] {
    return this.slots.map((s, i) => s.worker.performance.eventLoopUtilization(since?.[i]));
  }

  /**
   * Hands the tasks out in order, each to the next thread with room for it (see `inHand`), and
   * gives every answer to `onReply` (in the order they come back). `stop` is asked before each
   * task is handed out; once it says so, the tasks in hand are finished and no other starts. A task a worker
   * failed at rejects the batch (a model cassette miss as {@link ModelReplayMissError}).
   *
   * `meanwhile`, when given, does tasks in this thread, in the same order, until the first
   * thread has loaded its job: a thread takes seconds to load the harness, and a short batch
   * would otherwise wait that long with this thread and a core idle. A batch this thread has
   * done whole (or stopped) before any thread loaded resolves without waiting for the threads.
   */
  async run(
    tasks: readonly WorkerTask[],
    onReply: (reply: WorkerReply, task: WorkerTask, position: number) => void,
    stop: () => boolean = () => false,
    meanwhile?: (task: WorkerTask) => Promise<WorkerReply>,
  ): Promise<void> {
    if (this.closed) throw new Error('the worker pool is closed');
    let next = 0;
    let failed = false;
    // One lane per task a thread may hold: each lane hands its thread a task and waits for the
    // answer, so a thread has up to `inHand` tasks sent and not yet answered.
    const lanes = Array.from({ length: this.inHand }, () => this.slots).flat();
    // Settles once this thread has done or stopped the whole batch before any thread loaded: a
    // lane then has nothing to wait for (a short search is over before a thread has loaded,
    // and closing the pool ends the loads mid-way rather than after).
    let doneHere: () => void = () => undefined;
    const allDoneHere = new Promise<void>((resolve) => {
      doneHere = resolve;
    });
    const here = async (judge: (task: WorkerTask) => Promise<WorkerReply>): Promise<void> => {
      while (!this.started) {
        if (failed || next >= tasks.length || stop()) {
          doneHere();
          return;
        }
        const position = next++;
        const task = tasks[position];
        if (task === undefined) return;
        const reply = await judge(task).catch((error: unknown) => {
          failed = true;
          throw error;
        });
        onReply(reply, task, position);
      }
    };
    await Promise.all([
      ...(meanwhile === undefined ? [] : [here(meanwhile)]),
      ...lanes.map(async (slot) => {
        await Promise.race([slot.ready, allDoneHere]);
        for (;;) {
          if (failed || next >= tasks.length || stop()) return;
          const position = next++;
          const task = tasks[position];
          if (task === undefined) return;
          const reply = await slot.send(task).catch((error: unknown) => {
            failed = true;
            throw error;
          });
          if (reply.kind === 'error') {
            failed = true;
            if (reply.miss) throw new ModelReplayMissError(reply.miss);
            throw new Error(
              task.kind === 'case'
                ? `run ${reply.index} failed in a worker: ${reply.message}`
                : `plan ${task.task.plan.id} of ${task.task.scenarioId} failed in a worker: ${reply.message}`,
            );
          }
          onReply(reply, task, position);
        }
      }),
    ]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}

/**
 * Runs cases (by index) in `n` worker threads. Each worker rebuilds the same case list from the
 * suite options, asks for the next index when idle, and answers with the graded record; the
 * main thread alone writes results, so records are appended one at a time.
 */
export async function runInWorkers(
  suite: SuiteOptions,
  indexes: readonly number[],
  out: string,
  n: number,
  _shard: string | undefined,
  record: (result: RunResult, trajectory: unknown) => void,
  /** True once no further case may start (the suite's spend passed its cap). */
  stop: () => boolean = () => false,
): Promise<void> {
  const pool = new WorkerPool({ kind: 'suite', suite, out }, Math.min(n, indexes.length));
  try {
    await pool.run(
      indexes.map((index) => ({ kind: 'case', index })),
      (reply) => {
        if (reply.kind === 'result') record(reply.result, reply.trajectory);
      },
      stop,
    );
  } finally {
    await pool.close();
  }
}
