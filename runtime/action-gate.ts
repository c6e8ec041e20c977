import type { Operation } from './blueprint.js';
import { checkAction, type GateAction } from './policy.js';
import type { ActionOrigin } from './records.js';
import type { StepResult } from './step-result.js';
import type { RunRoles } from './run-roles.js';

/**
 * The policy gate and budget accounting of one action: the policy's verdict (allow, approval
 * needed, shadow, deny) with the calls a write will spend charged up front, whether the
 * tool-call budget is spent, and the record of a denial.
 */
export class ActionGate {
  constructor(private readonly rt: RunRoles) {}

  /** Whether the tool-call budget (when budgets are kept) has no call left. */
  outOfCalls(): boolean {
    return (
      this.rt.safeguards.budgets &&
      this.rt.ledger.run.used.toolCalls >= this.rt.binding.contract.budgets.toolCalls
    );
  }

  /** Records a denied action; an instruction found in content, refused, lets the run go on. */
  denied(
    op: Operation,
    args: Record<string, unknown>,
    origin: ActionOrigin,
    gate: { rule: string; reason: string; class: 'policy_denied' | 'budget_exhausted' },
  ): StepResult {
    this.rt.ledger.commit({
      ...this.rt.ledger.toExecuting(),
      event: {
        type: 'policy.denied',
        operationId: op.id,
        policyRule: gate.rule,
        reason: gate.reason,
        resultClass: gate.class,
      },
      action: {
        ...this.rt.ledger.actionRecord(op.id, op.tool, op.kind, args, 'failed', origin),
        errorClass: gate.class,
      },
    });
    // Refusing an instruction found in content is the gate working, not a reason to stop.
    if (origin === 'content' && gate.class === 'policy_denied') return { ok: true };
    return { ok: false, failure: { class: gate.class, message: gate.reason }, operationId: op.id };
  }

  /**
   * The policy gate's verdict on an operation. A write is charged the calls it will make: its
   * fresh checks (unless `resend`: they were made before the first send), the send, and the
   * reads that verify it.
   */
  gate(
    op: Operation,
    args: Record<string, unknown>,
    origin: ActionOrigin,
    resend = false,
  ): ReturnType<typeof checkAction> {
    const action: GateAction = {
      actionId: this.rt.ledger.actionId(op.id),
      tool: op.tool,
      kind: op.kind,
      args,
      origin,
    };
    if (op.kind === 'write') action.calls = this.writeCalls(op, resend, args);
    return checkAction({
      contract: this.rt.binding.contract,
      action,
      used: this.rt.ledger.run.used,
      elapsedMs: this.rt.clock.now() - this.rt.ledger.run.createdAt,
      approval: this.rt.ledger.approvals.get(action.actionId),
      safeguards: this.rt.safeguards,
    });
  }

  /** Tool calls a write makes at the least (see {@link gate}). */
  private writeCalls(op: Operation, resend: boolean, args: Record<string, unknown>): number {
    const verify = this.rt.verification.mustVerify(op) ? op.postconditions.length : 0;
    const inPlace = this.rt.checks.checksInPlace(op) ? 1 : 0;
    const cited = this.rt.checks.citationsFor(op, args).checks.length;
    // A resend after a wait checks its citations, and whether the effect is in place, again.
    if (resend) return cited + inPlace + 1 + verify;
    return op.preconditions.length + cited + inPlace + 1 + verify;
  }
}
