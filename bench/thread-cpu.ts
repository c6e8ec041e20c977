/**
 * CPU time per OS thread of this process, read from Linux's /proc: what part of a figure's CPU
 * was JavaScript on the main thread, on worker threads, and on V8's own background threads
 * (concurrent garbage collection and optimizing compilation). A single-threaded exploration
 * already keeps part of a second core busy with the latter, which bounds what a second worker
 * can add; a benchmark prints the split so the bound is seen, not guessed.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU milliseconds by OS thread id; empty where /proc is not there. */
export type ThreadCpu = ReadonlyMap<number, number>;

/** This process's threads' CPU so far (user + system, in ms). */
export function threadCpu(): ThreadCpu {
  const out = new Map<number, number>();
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces) in parentheses; utime and stime
      // are the 14th and 15th fields, in clock ticks (100 a second on Linux).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(task), (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return out;
}

/** CPU seconds between two readings: the main thread, the threads named `workers`, and the rest. */
export interface CpuSplit {
  main: number;
  workers: number;
  background: number;
}

export function cpuSplit(
  before: ThreadCpu,
  after: ThreadCpu,
  workers: readonly number[],
): CpuSplit {
  const split: CpuSplit = { main: 0, workers: 0, background: 0 };
  for (const [thread, ms] of after) {
    const used = (ms - (before.get(thread) ?? 0)) / 1_000;
    if (thread === process.pid) split.main += used;
    else if (workers.includes(thread)) split.workers += used;
    else split.background += used;
  }
  return split;
}
