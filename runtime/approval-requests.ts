import type { Operation } from './blueprint.js';
import type { ActionOrigin, ApprovalRecord } from './records.js';
import type { RunRoles } from './run-roles.js';

/**
 * Approvals: a write the contract puts behind a person asks the operator, with the request and
 * the answer each on record; a decided approval is reused, a requested one asked again.
 */
export class ApprovalRequests {
  constructor(private readonly rt: RunRoles) {}

  /** Asks the operator to approve a write (its request and answer on record), or returns the decision already made. */
  async obtainApproval(
    op: Operation,
    args: Record<string, unknown>,
    origin: ActionOrigin,
  ): Promise<ApprovalRecord> {
    const actionId = this.rt.ledger.actionId(op.id);
    const existing = this.rt.ledger.approvals.get(actionId);
    if (existing && existing.status !== 'requested') return existing;
    const requestedAt = this.rt.clock.now();
    const evidenceRefs = this.rt.ledger.evidence.map((e) => e.id);
    const requested: ApprovalRecord = {
      id: `${actionId}:approval`,
      runId: this.rt.binding.runId,
      actionId,
      tool: op.tool,
      status: 'requested',
      approver: null,
      reason: null,
      requestedAt,
      decidedAt: null,
      consumedAt: null,
      scope: { tool: op.tool, operationId: op.id },
      preview: { args },
      evidenceRefs,
      token: null,
    };
    // An undo asked for after a cancellation waits in `cancelled`: the run takes no new step.
    const moves = this.rt.ledger.run.state !== 'cancelled';
    this.rt.ledger.commit({
      ...(moves ? { to: 'waiting' as const } : {}),
      event: {
        type: 'approval.requested',
        operationId: op.id,
        actionId,
        evidenceRefs,
        reason: `${op.tool} needs an approval`,
      },
      approval: requested,
      action: this.rt.ledger.actionRecord(op.id, op.tool, 'write', args, 'intended', origin),
    });
    if (this.rt.options.probe) await this.rt.binding.probe('awaiting-approval', op, 0);
    const decision = await this.rt.operator.requestApproval({
      approvalId: requested.id,
      runId: this.rt.binding.runId,
      actionId,
      operationId: op.id,
      tool: op.tool,
      args,
      evidenceRefs,
      requestedAt,
    });
    const decided: ApprovalRecord =
      decision.decision === 'granted'
        ? {
            ...requested,
            status: 'granted',
            approver: decision.approver,
            decidedAt: this.rt.clock.now(),
            token: decision.token,
          }
        : {
            ...requested,
            status: 'denied',
            approver: decision.approver,
            reason: decision.reason,
            decidedAt: this.rt.clock.now(),
          };
    this.rt.ledger.commit({
      ...(moves ? { to: 'executing' as const } : {}),
      event: {
        type: decision.decision === 'granted' ? 'approval.granted' : 'approval.denied',
        operationId: op.id,
        actionId,
        operatorAction: `approval.${decision.decision}`,
        reason:
          decision.decision === 'denied' ? decision.reason : `granted by ${decision.approver}`,
      },
      approval: decided,
    });
    return decided;
  }
}
