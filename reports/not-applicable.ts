import { printable } from './printable.js';
import type { RunResult } from './results.js';

/**
 * A fault plan a suite left out because it cannot apply in the mode the suite ran in (a plan
 * that fails the refund's approval, in shadow mode where no approval is asked). Reports list
 * these beside the runs, so a suite in another mode never looks more complete than it was.
 */
export interface NotApplicablePlan {
  readonly scenarioId: string;
  readonly faultPlanId: string;
  readonly mode: string;
  /** Why: each fault that can never fire in the mode, or each check the plan fails there. */
  readonly reasons: readonly string[];
}

/** The section the table prints: a heading, then each plan with its reasons. */
export function renderNotApplicable(plans: readonly NotApplicablePlan[]): string[] {
  if (plans.length === 0) return [];
  const modes = [...new Set(plans.map((p) => p.mode))].join(', ');
  return [
    '',
    `Skipped: ${plans.length} fault plan(s) cannot apply in ${modes} mode`,
    ...plans.map(
      (p) =>
        `  - ${printable(p.scenarioId)} / ${printable(p.faultPlanId)}: ${p.reasons.map(printable).join('; ')}`,
    ),
  ];
}

/** One fault a run left out because it cannot reach the agent, in words. */
export function describeFaultNotApplicable(
  fault: NonNullable<RunResult['faultsNotApplicable']>[number],
): string {
  return `fault ${fault.index} (${printable(fault.kind)}): ${printable(fault.reason)}`;
}

/**
 * The section the table prints for faults that could not reach the agent: a count, then each
 * scenario and fault plan once (trials share the plan, so they share the reasons). A note,
 * never a failure.
 */
export function renderFaultsNotApplicable(results: readonly RunResult[]): string[] {
  const runs = results.filter((r) => (r.faultsNotApplicable ?? []).length > 0);
  if (runs.length === 0) return [];
  const faults = runs.reduce((n, r) => n + (r.faultsNotApplicable ?? []).length, 0);
  const lines = new Map<string, string>();
  for (const r of runs) {
    const key = JSON.stringify([r.agent, r.scenarioId, r.faultPlanId]);
    if (lines.has(key)) continue;
    const each = (r.faultsNotApplicable ?? []).map(describeFaultNotApplicable).join('; ');
    lines.set(key, `  - ${printable(r.scenarioId)} / ${printable(r.faultPlanId)}: ${each}`);
  }
  return [
    '',
    `Not applicable: ${faults} fault(s) in ${runs.length} run(s) cannot reach the agent (never fired, never failed)`,
    ...lines.values(),
  ];
}
