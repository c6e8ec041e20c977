import type { StopReason } from './contract.js';
import type { WorkflowState } from './states.js';
import { decide, type Failure } from './supervisor.js';
import type { RunRoles } from './run-roles.js';

/**
 * Acting on the supervisor's decisions: wait out a retryable failure (backoff or retry-after)
 * and retry, replan, escalate, or stop the run with its reason; and, on resume, finishing a
 * wait a crash cut short.
 */
export class FailureHandling {
  constructor(private readonly rt: RunRoles) {}

  /** Waits out a retryable failure (backoff or retry-after) and says whether to try again. */
  async retryIfWorthIt(
    failure: Failure,
    attempt: number,
    operationId: string,
    sideEffect: boolean,
  ): Promise<boolean> {
    const decision = decide(this.supervisorInput(failure, attempt, operationId, sideEffect));
    if (decision.kind !== 'retry' && decision.kind !== 'wait') return false;
    const state: WorkflowState = decision.kind === 'retry' ? 'retrying' : 'waiting';
    this.rt.ledger.commit({
      to: state,
      event: {
        type: decision.kind === 'retry' ? 'supervisor.retry' : 'supervisor.wait',
        operationId,
        reason: decision.reason,
        resultClass: failure.class,
        data: { delayMs: decision.delayMs },
      },
      used: { retries: 1 },
    });
    if (this.rt.options.probe) {
      const probe = decision.kind === 'retry' ? 'awaiting-backoff' : 'awaiting-retry-after';
      await this.rt.binding.probeWait(probe, operationId, attempt);
    }
    if (decision.delayMs > 0) await this.rt.clock.sleep(decision.delayMs);
    this.rt.ledger.commit({
      to: 'executing',
      event: {
        type: 'supervisor.resumed',
        operationId,
        reason: `retrying after ${decision.delayMs} ms`,
      },
    });
    return true;
  }

  /** Acts on the supervisor's decision for a failure: replan, escalate, or stop. */
  handleFailure(failure: Failure, operationId: string, sideEffect: boolean): void {
    const decision = decide(this.supervisorInput(failure, 1, operationId, sideEffect));
    switch (decision.kind) {
      case 'replan':
        this.rt.plannerContext.lastFailure = {
          operationId,
          class: failure.class,
          message: failure.message,
        };
        this.rt.ledger.commit({
          event: {
            type: 'supervisor.replan',
            operationId,
            reason: decision.reason,
            resultClass: failure.class,
          },
          used: { retries: 1 },
        });
        return;
      case 'regenerate':
        return;
      case 'escalate':
        this.markFailed(operationId, failure);
        this.stop('blocked', decision.stop, decision.reason);
        return;
      case 'reconcile':
        this.markFailed(operationId, failure);
        this.stop('blocked', 'ambiguous-unresolvable', decision.reason);
        return;
      case 'stop':
      case 'retry':
      case 'wait': {
        this.markFailed(operationId, failure);
        const stop = decision.kind === 'stop' ? decision.stop : 'tool-error';
        this.stop('failed', stop, decision.reason);
        return;
      }
    }
  }

  private markFailed(operationId: string, failure: Failure): void {
    const action = this.rt.ledger.actions.get(operationId);
    if (!action || action.status !== 'intended' || failure.class === 'ambiguous') return;
    this.rt.ledger.commit({
      event: {
        type: 'action.failed',
        operationId,
        actionId: action.id,
        resultClass: failure.class,
        reason: failure.message,
      },
      action: {
        ...action,
        status: 'failed',
        errorClass: failure.class,
        updatedAt: this.rt.clock.now(),
      },
    });
  }

  /** Ends (or blocks) the run with its stop reason, citing the evidence gathered. */
  stop(to: 'failed' | 'blocked', reason: StopReason, detail: string): void {
    this.rt.ledger.commit({
      to,
      event: {
        type: to === 'blocked' ? 'run.escalated' : 'run.failed',
        reason: detail,
        evidenceRefs: this.rt.ledger.evidence.map((e) => e.id),
        data: { stopReason: reason },
      },
      stop: { reason, detail },
    });
  }

  /**
   * A run stopped while it waited out a backoff or a retry-after (a crash mid-wait) first waits
   * out what is left of it: a crash never shortens the wait a failure class demands. Then it
   * leaves the wait, as a run stopped while waiting for a person does (its approval is asked
   * again: the answer, if one came, was lost with the process). True when the run was waiting
   * out a failure: nothing was in flight.
   */
  async leaveInterruptedWait(): Promise<boolean> {
    const state = this.rt.ledger.run.state;
    if (state !== 'retrying' && state !== 'waiting') return false;
    const wait = this.rt.store.events(this.rt.binding.runId).findLast((e) => e.toState === state);
    const delayMs = wait?.data?.delayMs;
    const failed = wait?.type === 'supervisor.retry' || wait?.type === 'supervisor.wait';
    if (failed && typeof delayMs === 'number') {
      const left = wait.at + delayMs - this.rt.clock.now();
      if (left > 0) {
        this.rt.ledger.commit({
          event: {
            type: 'supervisor.wait-resumed',
            operationId: wait.operationId,
            reason: `resumed ${delayMs - left} ms into a ${delayMs} ms wait: waiting out the rest`,
            data: { delayMs: left },
          },
        });
        await this.rt.clock.sleep(left);
      }
    }
    this.rt.ledger.commit({
      to: 'ready',
      event: { type: 'run.ready', reason: `resumed from ${state}` },
    });
    return failed;
  }

  /** What the supervisor decides a failure from. */
  supervisorInput(
    failure: Failure,
    attempt: number,
    operationId: string,
    sideEffect: boolean,
  ): Parameters<typeof decide>[0] {
    return {
      failure,
      attempt,
      retriesUsed: this.rt.ledger.run.used.retries,
      retryBudget: this.rt.binding.contract.budgets.retries,
      sideEffectPossible: sideEffect,
      safeguards: this.rt.safeguards,
      jitterSeed: `${this.rt.binding.runId}:${operationId}`,
      backoff: this.rt.backoff,
      stopConditions: this.rt.binding.contract.stopConditions,
    };
  }
}
