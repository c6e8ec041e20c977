/**
 * The cost of one step inside a long run, from a stopwatch stamped at each planner call: the
 * process's CPU time per step over a window of steps (its median, and its mean, which counts
 * the garbage collector's share of a growing heap) and the median wall-clock gap between
 * calls. Pure functions over the marks, apart from the stopwatch itself.
 *
 * The stopwatch reads the real clock (`wallNow`), never `performance.now()`: inside a run that
 * follows the run's virtual clock, which stands still while the run computes.
 */
import type { Planner } from '../runtime/planner.js';
import type { AgentRun, AgentUnderTest } from '../scenarios/agent.js';
import { ReferenceAgent } from '../scenarios/agents/reference.js';
import { wallNow } from '../scenarios/virtual-timers.js';
import { median } from './stats.js';

/** One stopwatch reading per planner call: real wall time and the process's CPU time, in ms. */
export interface Marks {
  wall: number[];
  cpu: number[];
}

/** The process's CPU time (user + system, every thread) in ms. */
export function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1_000;
}

/** Stamps both clocks. */
export function mark(marks: Marks): void {
  marks.wall.push(wallNow());
  marks.cpu.push(cpuNow());
}

/** A planner that stamps the stopwatch before each proposal, and otherwise is `planner`. */
export function timedPlanner(planner: Planner, marks: Marks): Planner {
  return {
    get versions() {
      return planner.versions;
    },
    propose: (context) => {
      mark(marks);
      return planner.propose(context);
    },
  };
}

/** The reference agent, with a stopwatch on its planner (inside whatever the engine wraps it in). */
export function timedAgent(marks: Marks): AgentUnderTest {
  const inner = new ReferenceAgent();
  const timed = (run: AgentRun): AgentRun => ({
    ...run,
    decoratePlanner: (planner: Planner): Planner =>
      timedPlanner(run.decoratePlanner ? run.decoratePlanner(planner) : planner, marks),
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

/**
 * The cost (µs) of one step at a position, over the steps of its window: the median CPU time
 * of a step (robust: a garbage collection or a descheduling lands on a few steps, not on the
 * middle one), the mean CPU time (everything, collections included) and the median wall gap.
 */
export interface StepCost {
  cpuUs: number;
  cpuMeanUs: number;
  wallUs: number;
}

/** The gaps (µs) between consecutive readings from..to of one clock. */
function gaps(readings: readonly number[], from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from + 1; i <= to; i++) out.push((readings[i]! - readings[i - 1]!) * 1_000);
  return out;
}

/**
 * The cost of the step at each position the run reached: the `window` steps centred on it,
 * moved inward where the run starts or ends (step 10,000 of a 10,000-step run is read from
 * its last `window` steps). Positions past the run's end are left out.
 */
export function perStepAt(
  marks: Marks,
  positions: readonly number[],
  window: number,
): Map<number, StepCost> {
  const at = new Map<number, StepCost>();
  const last = marks.wall.length - 1;
  for (const position of positions) {
    if (position > last + 1 || last < window) continue;
    const from = Math.min(Math.max(0, position - window / 2), last - window);
    const to = from + window;
    at.set(position, {
      cpuUs: median(gaps(marks.cpu, from, to)),
      cpuMeanUs: ((marks.cpu[to]! - marks.cpu[from]!) / window) * 1_000,
      wallUs: median(gaps(marks.wall, from, to)),
    });
  }
  return at;
}

/** Mean CPU cost per step (µs) in each of `parts` equal parts of a run. */
export function profile(marks: Marks, parts: number): number[] {
  const size = Math.floor((marks.cpu.length - 1) / parts);
  const means: number[] = [];
  for (let part = 0; part < parts && size > 0; part++) {
    const from = part * size;
    means.push(((marks.cpu[from + size]! - marks.cpu[from]!) / size) * 1_000);
  }
  return means;
}

/**
 * Growth of the per-step CPU cost along a run, in µs per step per 1,000 steps: a least-squares
 * line through the median cost of a step in each block of `window` steps, leaving out the
 * first block (the JIT warming up). A flat run's slope is near 0; a run whose every step scans
 * all the steps before it has a slope of its cost per item scanned × 1,000.
 */
export function slope(marks: Marks, window: number): number {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let from = window; from + window < marks.cpu.length; from += window) {
    xs.push(from + window / 2);
    ys.push(median(gaps(marks.cpu, from, from + window)));
  }
  if (xs.length < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return (num / den) * 1_000;
}
