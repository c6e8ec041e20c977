import type { Dimension } from '../graders/grade.js';
import type { RunGrades } from '../graders/index.js';
import type { GradedRun } from '../graders/metrics.js';
import type { RunResult } from './results.js';

/**
 * A stored run as suite metrics read it, so pass^k, completion and the other suite figures
 * come from a result set without the scenarios or trajectories behind it. Every field is
 * copied from the record; nothing is re-graded.
 *
 * @example
 * ```ts
 * const { results } = readResults('.faultline');
 * const metrics = suiteMetrics(results.map(toGradedRun), { k: 3 });
 * metrics.overall.passHatK.overall.passK;
 * ```
 */
export function toGradedRun(result: RunResult): GradedRun {
  return {
    scenarioId: result.scenarioId,
    faultPlanId: result.faultPlanId,
    trial: result.trial,
    seed: result.seed,
    agent: result.agent,
    workflowClass: result.workflowClass,
    tier: result.tier,
    state: result.state,
    stopReason: result.stopReason,
    virtualMs: result.figures.virtualMs,
    calls: result.figures.calls,
    okCalls: result.figures.okCalls,
    retries: result.figures.retries,
    crashes: result.figures.crashes,
    interventions: result.interventions,
    evidenceRequired: result.figures.evidenceRequired,
    evidenceLinked: result.figures.evidenceLinked,
    // The record holds exactly the RunGrades it was written from (bin/suite.ts), checked in
    // shape by runResultSchema. Finding codes and refs stay plain strings and objects there, so
    // a record never fails to load over a code this build does not know; metrics only compare
    // codes, so an unknown one is counted as what it is: not one of the codes they look for.
    grades: { pass: result.pass, grades: result.grades as unknown as RunGrades['grades'] },
  };
}

/**
 * Whether a stored run passed: its core dimensions passed and it ended as its scenario
 * expects (what `faultline run` exits 1 over).
 */
export function runPassed(result: RunResult): boolean {
  return result.pass && result.mismatches.length === 0;
}

/** One dimension's grade as a record stores it. */
export type StoredGrade = RunResult['grades'][string];

/**
 * A dimension's grade of a stored run. The record schema requires every dimension, so a
 * missing one means the record was built around the schema, not read through it.
 */
export function gradeOf(result: RunResult, dimension: Dimension): StoredGrade {
  const grade = result.grades[dimension];
  if (grade === undefined)
    throw new RangeError(`run ${result.id} has no ${dimension} grade (not a checked record)`);
  return grade;
}
