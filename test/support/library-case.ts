import { NO_FAULTS, type FaultPlan } from '../../faults/catalog.js';
import { gradeRun } from '../../graders/index.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { runScenario, type ScenarioRunResult } from '../../scenarios/runner.js';
import type { Scenario } from '../../scenarios/scenario.js';

/** The scenario `id` among `scenarios`; a missing one fails the test, naming it. */
export function scenarioIn(scenarios: readonly Scenario[], id: string): Scenario {
  const found = scenarios.find((s) => s.id === id);
  if (!found) throw new Error(`no scenario ${id}`);
  return found;
}

/** The fault plan `id` of a scenario (`none`: the fault-free run); a missing one fails the test. */
export function planOf(scenario: Scenario, id: string): FaultPlan {
  if (id === NO_FAULTS.id) return NO_FAULTS;
  const found = scenario.faultPlans.find((p) => p.id === id);
  if (!found) throw new Error(`${scenario.id} has no fault plan ${id}`);
  return found;
}

/** A graded run: the run, its grades, and each distinct finding as `dimension:code` and `code`. */
export interface GradedCase {
  result: ScenarioRunResult;
  grades: ReturnType<typeof gradeRun>;
  findings: string[];
  codes: string[];
}

/**
 * Runs a scenario under a plan with an agent of the zoo (the reference unless told) and grades
 * it on every dimension: what each library's tests ask of a case.
 *
 * @example
 * const { grades, findings } = await runGraded(s, planOf(s, 'lost-ack'), { outDir });
 */
export async function runGraded(
  scenario: Scenario,
  plan: FaultPlan,
  options: { outDir: string; agent?: string; seed?: number },
): Promise<GradedCase> {
  const agent = options.agent ?? 'reference';
  const entry = zooAgent(agent);
  if (!entry) throw new Error(`no agent ${agent}`);
  const result = await runScenario(scenario, {
    outDir: options.outDir,
    faultPlan: plan,
    agent: () => entry.create(),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  });
  const grades = gradeRun(scenario, result.trajectory);
  const found = Object.values(grades.grades).flatMap((g) =>
    g.findings.map((f) => ({ dimension: g.dimension, code: f.code })),
  );
  return {
    result,
    grades,
    findings: [...new Set(found.map((f) => `${f.dimension}:${f.code}`))],
    codes: [...new Set(found.map((f) => f.code))],
  };
}
