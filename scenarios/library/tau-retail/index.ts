import type { Scenario } from '../../scenario.js';
import { taskScenario } from './task-scenario.js';
import { loadTasks, type TaskSplit } from './tasks.js';

const built = new Map<TaskSplit, readonly Scenario[]>();

/**
 * The τ-bench retail tasks of a split as library scenarios (`tau-retail/test-000` …, or
 * `tau-retail-train/train-000` …), built by code from the task file the first time they are
 * asked for and kept for the process: the gold path of each is replayed once, here.
 *
 * @example
 * ```ts
 * tauRetailScenarios('test').length; // 115
 * ```
 */
export function tauRetailScenarios(split: TaskSplit): readonly Scenario[] {
  let scenarios = built.get(split);
  if (!scenarios) {
    scenarios = loadTasks(split).map((task, i) => taskScenario(split, i, task));
    built.set(split, scenarios);
  }
  return scenarios;
}

export { KNOWN_GOLD_REFUSALS, replayGold, taskScenario, taskScenarioId } from './task-scenario.js';
export { loadTasks, parseTasks, TASK_SPLITS } from './tasks.js';
export type { GoldAction, RetailTask, TaskSplit } from './tasks.js';
