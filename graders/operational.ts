import type { GradeContext } from './context.js';
import { finding, grade, type Finding, type Grade } from './grade.js';

/**
 * Operational fit: what the run cost to operate — virtual duration, calls, retries, human
 * interventions, and the planner's tokens and cost where its records report them (white-box).
 * Findings only where the contract sets a limit: its virtual time and cost budgets.
 */
export function gradeOperational(ctx: GradeContext): Grade {
  const t = ctx.trajectory;
  const budgets = ctx.scenario.contract.budgets;
  const findings: Finding[] = [];
  const lastCall = ctx.calls.at(-1);
  const activeMs = lastCall?.at ?? 0;
  if (activeMs > budgets.virtualTimeMs) {
    findings.push(
      finding(
        'over-time-budget',
        `the agent was still calling tools at ${activeMs} ms; the contract allows ${budgets.virtualTimeMs} ms`,
        lastCall ? [{ kind: 'call', callId: lastCall.callId }] : [{ kind: 'outcome' }],
      ),
    );
  }
  let costUsd = 0;
  let tokens = 0;
  for (const ev of ctx.records?.events ?? []) {
    costUsd += ev.budgetDelta?.costUsd ?? 0;
    // The runtime records a planner's usage as inputTokens and outputTokens.
    for (const field of ['inputTokens', 'outputTokens'] as const) {
      const reported = ev.data?.[field];
      if (typeof reported === 'number') tokens += reported;
    }
  }
  if (budgets.costUsd > 0 && costUsd > budgets.costUsd) {
    findings.push(
      finding(
        'over-cost-budget',
        `the planner reported $${costUsd.toFixed(4)}; the contract allows $${budgets.costUsd}`,
        [{ kind: 'outcome' }],
      ),
    );
  }
  const interventions = t.operator.filter(
    (o) => o.kind.startsWith('approval.') || o.kind.startsWith('operator.'),
  );
  return grade(
    'operational',
    findings,
    2,
    {
      virtualMs: t.times.virtualMs,
      activeMs,
      calls: ctx.calls.length,
      writes: ctx.calls.filter((c) => ctx.isWrite(c)).length,
      retries: ctx.retries.size,
      interventions: interventions.length,
      crashes: t.crashes.length,
      tokens,
      costUsd,
    },
    ctx.records === null,
  );
}
