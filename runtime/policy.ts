import type { Contract, ToolAuthority } from './contract.js';
import { describePredicate, evaluate } from './predicate.js';
import type { ApprovalRecord, BudgetUse } from './records.js';
import type { Safeguards } from './safeguards.js';

/** An action as the gate sees it: what would run, and where the proposal came from. */
export interface GateAction {
  actionId: string;
  tool: string;
  kind: 'read' | 'write';
  args: Record<string, unknown>;
  origin: 'blueprint' | 'content' | 'compensation';
  /**
   * Tool calls the action makes at the least, when it goes ahead (1 unless said): a write's
   * fresh reads, its send and its verification. The tool-call budget must hold them all, so a
   * write is never left half done — sent but not verified — for want of calls.
   */
  calls?: number;
}

export interface GateInput {
  contract: Contract;
  action: GateAction;
  used: BudgetUse;
  /** Virtual milliseconds since the run started. */
  elapsedMs: number;
  /** The approval recorded for this very action, if any. */
  approval: ApprovalRecord | undefined;
  safeguards: Safeguards;
}

/** The rule that decided, by stable id, so events and graders can name it. */
export type GateDecision =
  | { verdict: 'allow'; rule: string }
  | { verdict: 'shadow'; rule: string; reason: string }
  | { verdict: 'needs-approval'; rule: string; reason: string }
  | { verdict: 'deny'; rule: string; reason: string; class: 'policy_denied' | 'budget_exhausted' };

/** Whether the contract requires an approval for this action in the run's autonomy mode. */
export function approvalRequired(contract: Contract, action: GateAction): boolean {
  if (action.kind !== 'write') return false;
  if (contract.autonomy === 'supervised') return true;
  const rule = contract.authority.tools[action.tool]?.approval ?? 'never';
  if (rule === 'never') return false;
  if (rule === 'always') return true;
  return evaluate(rule.when, { args: action.args });
}

/**
 * Why a call with these arguments is beyond `authority`'s cap, or `undefined` when it has none
 * or the call meets it. Shared by the gate, the scripted approver and the policy grader, so
 * all three read a cap the same way.
 */
export function capExceeded(
  authority: ToolAuthority | undefined,
  args: Readonly<Record<string, unknown>>,
): string | undefined {
  if (!authority?.cap || evaluate(authority.cap, { args })) return undefined;
  return `the contract caps it at ${describePredicate(authority.cap)}`;
}

/**
 * Why a call is outside the contract's authority — a tool it does not list, a resource outside
 * its scope, an argument beyond its cap — with the rule it breaks, or `undefined` when it is
 * within. Shared by the gate and the scripted approver, so both read authority the same way.
 */
export function outsideAuthority(
  contract: Contract,
  tool: string,
  args: Readonly<Record<string, unknown>>,
): { rule: string; reason: string } | undefined {
  const authority = Object.hasOwn(contract.authority.tools, tool)
    ? contract.authority.tools[tool]
    : undefined;
  if (!authority)
    return {
      rule: 'authority.tool-listed',
      reason: `tool ${tool} is not in the contract's authority`,
    };
  for (const arg in authority.resources) {
    const allowed = authority.resources[arg];
    if (allowed === undefined || allowed === '*') continue;
    const value = args[arg];
    if (value === undefined)
      return {
        rule: 'authority.resource-scope',
        reason: `${tool} is scoped by ${arg}, which the call does not name`,
      };
    const shown = typeof value === 'string' ? value : JSON.stringify(value);
    if (!allowed.includes(shown))
      return {
        rule: 'authority.resource-scope',
        reason: `${tool} may not touch ${arg}=${shown} (allowed: ${allowed.join(', ')})`,
      };
  }
  const overCap = capExceeded(authority, args);
  if (overCap !== undefined)
    return {
      rule: 'authority.cap',
      reason: `${tool} ${JSON.stringify(args)} is beyond its cap: ${overCap}`,
    };
  return undefined;
}

/**
 * The policy gate: deterministic code that disposes of what the planner proposes. Order of
 * checks: authority (tool, resources, cap), provenance, budgets, autonomy mode, approvals. Every
 * write it allows is then checked against freshly read state by the preconditions.
 */
export function checkAction(input: GateInput): GateDecision {
  const { contract, action, used, safeguards } = input;
  const outside = outsideAuthority(contract, action.tool, action.args);
  if (outside) return { verdict: 'deny', ...outside, class: 'policy_denied' };
  if (action.origin === 'content' && safeguards['provenance-gate']) {
    return {
      verdict: 'deny',
      rule: 'provenance.untrusted-origin',
      reason: `${action.tool} was proposed from retrieved content, which never carries authority`,
      class: 'policy_denied',
    };
  }
  if (safeguards.budgets) {
    const b = contract.budgets;
    const calls = action.calls ?? 1;
    if (used.toolCalls + calls > b.toolCalls)
      return exhausted(
        'budget.tool-calls',
        calls === 1
          ? `${used.toolCalls} of ${b.toolCalls} tool calls used`
          : `${used.toolCalls} of ${b.toolCalls} tool calls used, and ${action.tool} needs ${calls} (its checks, the call and its verification)`,
      );
    if (action.kind === 'write' && used.externalWrites >= b.externalWrites) {
      return exhausted(
        'budget.external-writes',
        `${used.externalWrites} of ${b.externalWrites} external writes used`,
      );
    }
    if (input.elapsedMs >= b.virtualTimeMs)
      return exhausted(
        'budget.virtual-time',
        `${input.elapsedMs} ms of ${b.virtualTimeMs} ms used`,
      );
    if (b.costUsd > 0 && used.costUsd >= b.costUsd)
      return exhausted('budget.cost', `$${used.costUsd.toFixed(4)} of $${b.costUsd} used`);
  }
  if (
    action.kind === 'write' &&
    (contract.autonomy === 'shadow' || contract.autonomy === 'recommend')
  ) {
    return {
      verdict: 'shadow',
      rule: `autonomy.${contract.autonomy}`,
      reason: `${contract.autonomy} mode executes no writes`,
    };
  }
  if (safeguards.approvals && approvalRequired(contract, action)) {
    const approval = input.approval;
    if (!approval || approval.status === 'requested') {
      return {
        verdict: 'needs-approval',
        rule: 'approval.required',
        reason: `${action.tool} needs an approval`,
      };
    }
    if (approval.actionId !== action.actionId) {
      return {
        verdict: 'deny',
        rule: 'approval.wrong-action',
        reason: `approval ${approval.id} was granted for another action`,
        class: 'policy_denied',
      };
    }
    if (approval.status === 'denied') {
      return {
        verdict: 'deny',
        rule: 'approval.denied',
        reason: `approval ${approval.id} was denied`,
        class: 'policy_denied',
      };
    }
    if (approval.status === 'consumed') {
      return {
        verdict: 'deny',
        rule: 'approval.reused',
        reason: `approval ${approval.id} was already used`,
        class: 'policy_denied',
      };
    }
  }
  return { verdict: 'allow', rule: 'authority.allowed' };
}

function exhausted(rule: string, reason: string): GateDecision {
  return { verdict: 'deny', rule, reason, class: 'budget_exhausted' };
}
