import { Worker } from 'node:worker_threads';
import type { RunResult } from '../reports/results.js';
import type { SuiteOptions } from './suite.js';

/** What the main thread sends a worker, and what it answers per case. */
export interface WorkerJob {
  suite: SuiteOptions;
  out: string;
}
export type WorkerReply =
  | { kind: 'result'; result: RunResult; trajectory: unknown }
  | { kind: 'error'; index: number; message: string }
  | { kind: 'idle' };

/**
 * Run from the sources, a worker needs tsx before it can load worker-main.ts (worker.js registers
 * it); the built package's worker-main.js runs on plain Node.
 */
const WORKER_ENTRY = import.meta.url.endsWith('.ts') ? './worker.js' : './worker-main.js';

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
  const queue = [...indexes];
  const workers = Array.from({ length: Math.min(n, indexes.length) }, () => {
    return new Worker(new URL(WORKER_ENTRY, import.meta.url), {
      workerData: { suite, out } satisfies WorkerJob,
    });
  });
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve, reject) => {
          const next = (): void => {
            const index = stop() ? undefined : queue.shift();
            if (index === undefined) {
              void worker.terminate().then(() => {
                resolve();
              });
              return;
            }
            worker.postMessage(index);
          };
          worker.on('message', (reply: WorkerReply) => {
            if (reply.kind === 'result') record(reply.result, reply.trajectory);
            else if (reply.kind === 'error') {
              reject(new Error(`run ${reply.index} failed in a worker: ${reply.message}`));
              void Promise.all(workers.map((w) => w.terminate()));
              return;
            }
            next();
          });
          worker.on('error', reject);
        }),
    ),
  );
}
