import type { Blueprint, Operation } from './blueprint.js';
import { canonicalJson } from './canonical-json.js';
import type { Contract } from './contract.js';
import type { ActionRecord, ActionStatus, PlanRecord, WrittenPlan } from './records.js';

/**
 * The id of the plan a run starts with when the planner is to write it (`planning:
 * 'objective'`): no operations, no completion checks. The run's versions name this plan; the
 * plans the planner writes are stored as plan records, each with its plan version.
 */
export const WRITTEN_PLAN_ID = 'written-by-planner';

/** How a run gets its plan: a blueprint given with the run, or one its planner writes as data. */
export type Planning = 'blueprint' | 'objective';

/** The plan an objective-only run starts from: nothing to do until the planner writes one. */
export function emptyPlan(): Blueprint {
  return { id: WRITTEN_PLAN_ID, version: '0', operations: [], completion: [] };
}

/** Whether a run's starting blueprint is the empty plan of an objective-only run. */
export function isObjectiveOnly(blueprint: unknown): boolean {
  return (
    typeof blueprint === 'object' &&
    blueprint !== null &&
    (blueprint as { id?: unknown }).id === WRITTEN_PLAN_ID
  );
}

/** The blueprint the runtime runs for a written plan (its version is the run's plan version). */
export function writtenBlueprint(plan: WrittenPlan, planVersion: number): Blueprint {
  return {
    id: WRITTEN_PLAN_ID,
    version: String(planVersion),
    operations: plan.operations,
    completion: plan.completion,
  };
}

/** The last plan the planner wrote, from a run's plan records; the empty plan before one. */
export function latestWrittenPlan(plans: readonly PlanRecord[]): Blueprint {
  for (let i = plans.length - 1; i >= 0; i--) {
    const plan = plans[i];
    if (plan?.written) return writtenBlueprint(plan.written, plan.version);
  }
  return emptyPlan();
}

/**
 * Statuses whose operation a new plan must keep exactly as it was: a write in flight
 * (`intended`, `sent`, `ambiguous`) has an idempotency key derived from its id, so renaming,
 * dropping or changing it would make its retry or reconciliation a different write; a
 * confirmed or reconciled one is a fact of the world the plan's later steps read.
 */
const KEPT_STATUSES: ReadonlySet<ActionStatus> = new Set([
  'intended',
  'sent',
  'ambiguous',
  'confirmed',
  'reconciled',
]);

/** What a written plan is checked against: the plan in force, the run's actions, its tools. */
export interface PlanCheckInput {
  current: Blueprint;
  actions: ReadonlyMap<string, ActionRecord>;
  contract: Contract;
  hasTool(name: string): boolean;
}

/**
 * Why a plan the planner wrote may not replace the one in force, one line each (empty when
 * it may): every operation id unique; every tool the world's and in the contract's authority;
 * and no operation that is intended, sent, ambiguous, confirmed or reconciled dropped, renamed
 * or changed. The runtime refuses such a plan as `invalid_output`, so the planner may answer
 * again — it never reaches the store.
 *
 * @example
 * ```ts
 * const issues = checkWrittenPlan(plan, { current, actions, contract, hasTool: () => true });
 * if (issues.length > 0) console.log(issues.join('; '));
 * ```
 */
export function checkWrittenPlan(plan: WrittenPlan, input: PlanCheckInput): string[] {
  const issues: string[] = [];
  const byId = new Map<string, Operation>();
  plan.operations.forEach((op, i) => {
    if (byId.has(op.id)) issues.push(`operations[${i}].id: duplicate operation id "${op.id}"`);
    byId.set(op.id, op);
    if (!input.hasTool(op.tool))
      issues.push(`operations[${i}].tool: the world has no tool "${op.tool}"`);
    else if (!(op.tool in input.contract.authority.tools))
      issues.push(`operations[${i}].tool: "${op.tool}" is not in the contract's authority`);
  });
  for (const op of input.current.operations) {
    const status = input.actions.get(op.id)?.status;
    if (status === undefined || !KEPT_STATUSES.has(status)) continue;
    const next = byId.get(op.id);
    if (!next) {
      issues.push(
        `operation "${op.id}" is ${status}: a new plan may not drop or rename it (its idempotency key rests on its id)`,
      );
    } else if (canonicalJson(next) !== canonicalJson(op)) {
      issues.push(
        `operation "${op.id}" is ${status}: a new plan may not change it (${changedFields(op, next).join(', ')} differ)`,
      );
    }
  }
  return issues;
}

function changedFields(before: Operation, after: Operation): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]) as Set<keyof Operation>;
  return [...keys].filter((k) => canonicalJson(before[k]) !== canonicalJson(after[k]));
}
