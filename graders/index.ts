import type { Scenario, Trajectory } from '../scenarios/grading.js';
import { createContext, type GradeContext } from './context.js';
import { gradeEfficiency } from './efficiency.js';
import { gradeEvidence } from './evidence.js';
import { CORE_DIMENSIONS, type Dimension, type Grade } from './grade.js';
import { gradeIntegrity } from './integrity.js';
import { gradeOperational } from './operational.js';
import { gradeOutcome } from './outcome.js';
import { gradePolicy } from './policy.js';
import { gradeRecovery } from './recovery.js';
import { gradeToolUse } from './tool-use.js';

export * from './grade.js';
export { recoveryVerdicts, type FaultVerdict } from './recovery.js';
export { createContext, type GradeContext } from './context.js';

/** Every dimension's grade for one run, and whether the run passes overall. */
export interface RunGrades {
  readonly grades: Readonly<Record<Dimension, Grade>>;
  /** Outcome, policy compliance, state integrity and recovery all pass. */
  readonly pass: boolean;
}

const GRADERS = {
  outcome: gradeOutcome,
  policy: gradePolicy,
  integrity: gradeIntegrity,
  recovery: gradeRecovery,
  'tool-use': gradeToolUse,
  efficiency: gradeEfficiency,
  operational: gradeOperational,
  evidence: gradeEvidence,
} as const satisfies Record<Dimension, unknown>;

/**
 * Grades one run on every dimension. Pure: the same scenario and trajectory give equal grades,
 * and nothing outside them is read — not the world, not the store, not the agent's name.
 * `ctx`, when given, is `createContext(scenario, trajectory)` made by the caller, who needs it
 * again (for {@link gradedRun}): building it is a good part of grading a run.
 *
 * @example
 * ```ts
 * const { trajectory } = await runTrial({ scenario, agent, outDir });
 * const { pass, grades } = gradeRun(scenario, trajectory);
 * grades.recovery.findings; // [{ code: 'unreconciled-retry', … }]
 * ```
 */
export function gradeRun(
  scenario: Scenario,
  trajectory: Trajectory,
  ctx: GradeContext = createContext(scenario, trajectory),
): RunGrades {
  const grades = Object.fromEntries(
    Object.entries(GRADERS).map(([dimension, judge]) => [dimension, judge(ctx)]),
  ) as Record<Dimension, Grade>;
  return { grades, pass: CORE_DIMENSIONS.every((d) => grades[d].pass) };
}
