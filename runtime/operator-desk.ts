import type { Operation } from './blueprint.js';
import { idempotencyKey } from './idempotency-key.js';
import type { OperatorCommand } from './operator.js';
import { approvalRequired, type GateAction } from './policy.js';
import { APPROVAL_TOKEN_META, META } from './protocol.js';
import type { ActionRecord, ApprovalRecord } from './records.js';
import { toFailure } from './step-result.js';
import type { RunRoles } from './run-roles.js';

/**
 * The operator's commands at a step boundary (pause, resume, cancel) and the harness's abort,
 * and cancellation: a transition, not a kill — compensation where the contract promises it
 * and the world offers an undo (an undo waits for an approval as any write does), then the
 * credential revoked.
 */
export class OperatorDesk {
  constructor(private readonly rt: RunRoles) {}

  /** Polls the operator (and the abort signal) at a step boundary; true when something happened. */
  async handleOperator(): Promise<boolean> {
    const found = this.pollOperator();
    if (!found) return false;
    await this.actOnOperator(found);
    return true;
  }

  /** What the abort signal or the operator asks for now, if anything; synchronous and cheap. */
  pollOperator(): OperatorCommand | 'abort' | undefined {
    return this.rt.options.signal?.aborted ? 'abort' : this.rt.operator.poll();
  }

  /** Acts on a command: cancel (or abort), or pause until the operator resumes or cancels. */
  async actOnOperator(command: OperatorCommand | 'abort'): Promise<void> {
    if (command === 'abort') {
      await this.cancel('aborted by the harness', 'abort');
      return;
    }
    if (command.kind === 'cancel') {
      await this.cancel(command.reason, 'cancel');
      return;
    }
    if (command.kind === 'pause') {
      this.rt.ledger.commit({
        to: 'waiting',
        event: { type: 'run.paused', operatorAction: 'pause', reason: 'paused by operator' },
      });
      const next = await this.rt.operator.nextCommand();
      if (next.kind === 'cancel') {
        await this.cancel(next.reason, 'cancel');
        return;
      }
      this.rt.ledger.commit({
        to: 'ready',
        event: { type: 'run.unpaused', operatorAction: 'resume', reason: 'resumed by operator' },
      });
    }
  }

  /**
   * Cancellation is a transition, not a kill: no new actions; the in-flight call already
   * reached a known boundary (commands are polled between steps); compensation runs where the
   * contract promises it and the world offers an undo; the credential is revoked last.
   */
  private async cancel(reason: string, operatorAction: string): Promise<void> {
    const compensable = [...this.rt.ledger.actions.values()].filter(
      (a) =>
        a.kind === 'write' &&
        (a.status === 'confirmed' || a.status === 'reconciled') &&
        this.rt.binding.operation(a.operationId)?.compensate,
    );
    const compensate =
      compensable.length > 0 && this.rt.binding.contract.recoveryPromise.compensateOnCancel;
    this.rt.ledger.commit({
      to: 'cancelled',
      event: {
        type: 'run.cancelled',
        operatorAction,
        reason,
        // What the run had gathered when it was stopped, as a failed or escalated run cites it.
        evidenceRefs: this.rt.ledger.evidence.map((e) => e.id),
        data: { compensationOwed: compensable.map((a) => a.operationId) },
      },
      stop: { reason: 'cancelled', detail: reason },
      compensationOwed: compensable.length > 0,
    });
    if (compensate) {
      const owed: string[] = [];
      for (const action of compensable.reverse())
        if (!(await this.compensateOne(action))) owed.push(action.operationId);
      if (owed.length === 0) {
        this.rt.ledger.commit({
          to: 'compensated',
          event: { type: 'run.compensated', reason: `compensated ${compensable.length} action(s)` },
          compensationOwed: false,
        });
      } else {
        // The run stays cancelled with the compensation owed: a person takes it from here.
        const detail = `${reason}; compensation owed for ${owed.join(', ')}, left to a person`;
        this.rt.ledger.commit({
          event: {
            type: 'run.compensation-owed',
            reason: detail,
            data: { compensationOwed: owed },
          },
          stop: { reason: 'cancelled', detail },
        });
      }
    }
    await this.rt.options.credential.revoke?.();
  }

  private async compensateOne(original: ActionRecord): Promise<boolean> {
    const op = this.rt.binding.operation(original.operationId);
    if (!op?.compensate) return false;
    const undo: Operation = {
      id: `compensate-${op.id}`,
      description: `undo ${op.id}`,
      tool: op.compensate.tool,
      kind: 'write',
      args: op.compensate.args,
      preconditions: [],
      postconditions: [],
      citations: [],
      idempotent: op.idempotent,
    };
    const args = this.rt.ledger.resolveArgs(undo);
    const key = idempotencyKey(this.rt.binding.runId, undo.id);
    const record: ActionRecord = {
      ...this.rt.ledger.actionRecord(undo.id, undo.tool, 'write', args, 'intended', 'compensation'),
      idempotencyKey: key,
      compensates: original.id,
    };
    // An undo is a write like any other: where the contract puts writes behind a person (every
    // write in supervised mode), the undo waits for one too. Not approved, it is not sent: the
    // compensation stays owed, for a person, rather than the run deciding alone to touch the
    // world again.
    const gated: GateAction = {
      actionId: record.id,
      tool: undo.tool,
      kind: 'write',
      args,
      origin: 'compensation',
    };
    let approval: ApprovalRecord | undefined;
    if (this.rt.safeguards.approvals && approvalRequired(this.rt.binding.contract, gated)) {
      approval = await this.rt.approvalRequests.obtainApproval(undo, args, 'compensation');
      if (approval.status !== 'granted') {
        this.rt.ledger.commit({
          event: {
            type: 'action.failed',
            operationId: undo.id,
            actionId: record.id,
            resultClass: 'approval_denied',
            reason: `the undo of ${op.id} was not approved (${approval.reason ?? 'denied'}): compensation owed`,
          },
          action: { ...record, status: 'failed', errorClass: 'approval_denied' },
        });
        return false;
      }
      record.approvalId = approval.id;
    }
    this.rt.ledger.commit({
      event: {
        type: 'action.intended',
        operationId: undo.id,
        actionId: record.id,
        idempotencyKey: key,
        reason: `compensates ${original.id}`,
      },
      action: record,
    });
    const meta: Record<string, string> = {
      ...this.rt.binding.meta(undo.id),
      [META.idempotencyKey]: key,
    };
    if (approval?.token) meta[APPROVAL_TOKEN_META] = approval.token;
    const outcome = await this.rt.executor.call({
      tool: undo.tool,
      args,
      meta,
      timeoutMs: this.rt.callTimeoutMs,
    });
    if (outcome.kind !== 'ok') {
      this.rt.ledger.commit({
        event: {
          type: 'action.failed',
          operationId: undo.id,
          resultClass: toFailure(outcome, true).class,
          reason: outcome.message,
        },
        action: { ...record, status: 'failed' },
        used: { toolCalls: 1, externalWrites: 1 },
      });
      return false;
    }
    this.rt.ledger.commit({
      event: {
        type: 'action.confirmed',
        operationId: undo.id,
        actionId: record.id,
        idempotencyKey: key,
        resultClass: 'ok',
      },
      action: { ...record, status: 'confirmed', result: outcome.result, attempts: 1 },
      used: { toolCalls: 1, externalWrites: 1 },
      ...(approval
        ? {
            approval: { ...approval, status: 'consumed' as const, consumedAt: this.rt.clock.now() },
          }
        : {}),
    });
    this.rt.ledger.commit({
      event: {
        type: 'action.compensated',
        operationId: op.id,
        actionId: original.id,
        reason: `undone by ${undo.id}`,
      },
      action: { ...original, status: 'compensated', updatedAt: this.rt.clock.now() },
    });
    return true;
  }
}
