import { judgePlan, type ExploreAgent } from '../explore/explore.js';
import { scenarioReach, type ScenarioReach } from '../explore/reach.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { PlanTask, WorkerReply } from './workers.js';

/**
 * Judges one plan task of `explore --workers` and answers as a worker thread does: a worker
 * thread judges with it, and the main thread too while the threads load, so both give the same
 * verdicts. Each scenario's reach is worked out once per judge.
 *
 * @example
 * ```ts
 * const judge = planJudge(agent, '.faultline');
 * const reply = await judge(scenario, { scenarioId: scenario.id, plan, worldSeed: 7 });
 * ```
 */
export function planJudge(
  agent: ExploreAgent,
  outDir: string,
): (scenario: Scenario, task: PlanTask) => Promise<WorkerReply> {
  const reaches = new Map<string, ScenarioReach>();
  return async (scenario, task) => {
    let reach = reaches.get(scenario.id);
    if (!reach) reaches.set(scenario.id, (reach = scenarioReach(scenario)));
    const judged = await judgePlan(
      {
        scenario,
        agent,
        reach,
        worldSeed: task.worldSeed,
        outDir,
        ...(task.witness === undefined ? {} : { witness: task.witness }),
      },
      task.plan,
    );
    const violations = judged.violations.length;
    return violations === 0
      ? { kind: 'judged', violations }
      : { kind: 'judged', violations, judged };
  };
}
