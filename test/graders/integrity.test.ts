import { describe, expect, it } from 'vitest';
import { gradeRun } from '../../graders/index.js';
import { ReferenceAgent } from '../../scenarios/agents/reference.js';
import { runTrial } from '../../scenarios/engine.js';
import { recordsOf } from '../support/grader-fixtures.js';
import { HOSTILE_NOTE, longPartialRefund } from '../support/long-run.js';
import { tmpOut } from '../support/trial-harness.js';

/** How often grading a run of `steps` steps reads the first event the agent recorded. */
async function readsOfFirstEvent(steps: number): Promise<{ reads: number; pass: boolean }> {
  const scenario = longPartialRefund(steps);
  const { trajectory } = await runTrial({
    scenario,
    faultPlan: HOSTILE_NOTE,
    agent: () => new ReferenceAgent(),
    outDir: tmpOut(),
  });
  const events = recordsOf(trajectory).events;
  const first = events[0]!;
  let reads = 0;
  events[0] = new Proxy(first, {
    get: (target, key, receiver) => {
      reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  const { pass } = gradeRun(scenario, trajectory);
  return { reads, pass };
}

describe('gradeIntegrity over a long run', () => {
  it('reads each agent event a fixed number of times, however many actions the run confirmed', async () => {
    const short = await readsOfFirstEvent(10);
    const long = await readsOfFirstEvent(60);

    expect(short.pass && long.pass).toBe(true);
    expect(long.reads).toBe(short.reads);
  });
});
