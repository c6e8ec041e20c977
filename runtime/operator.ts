/** What a person is asked to approve: the change, its scope, and the evidence behind it. */
export interface ApprovalRequest {
  approvalId: string;
  runId: string;
  actionId: string;
  operationId: string;
  tool: string;
  /** The change preview: the exact arguments the write will be sent with. */
  args: Record<string, unknown>;
  /** Evidence shown to the approver, by id. */
  evidenceRefs: string[];
  requestedAt: number;
}

export type ApprovalDecision =
  | { decision: 'granted'; approver: string; token: string; at: number }
  | { decision: 'denied'; approver: string; reason: string; at: number };

export type OperatorCommand =
  { kind: 'pause' } | { kind: 'resume' } | { kind: 'cancel'; reason: string };

/**
 * The runtime's line to a person. Approvals may take any amount of (virtual) time; commands
 * are polled at step boundaries, so a pause or cancel never interrupts a call in flight.
 */
export interface Operator {
  requestApproval(request: ApprovalRequest): Promise<ApprovalDecision>;
  /** A pause or cancel issued since the last poll. */
  poll(): OperatorCommand | undefined;
  /** While paused: resolves with the next command (resume or cancel). */
  nextCommand(): Promise<OperatorCommand>;
}

/** No person attached: every approval is denied (so nothing needing one runs), no commands come. */
export const noOperator: Operator = {
  requestApproval: (request) =>
    Promise.resolve({
      decision: 'denied',
      approver: 'nobody',
      reason: 'no operator is attached',
      at: request.requestedAt,
    }),
  poll: () => undefined,
  nextCommand: () =>
    Promise.resolve({ kind: 'cancel', reason: 'no operator is attached to resume a paused run' }),
};
