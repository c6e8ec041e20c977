import { printable } from './printable.js';

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
