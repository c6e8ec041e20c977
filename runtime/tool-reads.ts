import type { Operation } from './blueprint.js';
import { requestKey } from './canonical-json.js';
import type { CallOutcome } from './executor.js';
import type { ActionOrigin } from './records.js';
import type { Failure } from './supervisor.js';
import type { FailureClass } from './failure-class.js';
import { toFailure, type StepResult } from './step-result.js';
import type { RunRoles } from './run-roles.js';

/**
 * Tool reads: the planner's reads (one action each) and the reads made to check something
 * (fresh reads for preconditions, citations, reconciliation, postconditions, completion),
 * retried by class, each committed with its evidence. A read repeating one that failed is a
 * retry, charged to the budget.
 */
export class ToolReads {
  /** Reads (tool and canonical args) whose last attempt did not come back ok. */
  private readonly failedReads = new Set<string>();

  constructor(private readonly rt: RunRoles) {}

  /** One read the planner asked for: gated, retried by class, committed with its evidence. */
  async read(
    op: Operation,
    args: Record<string, unknown>,
    origin: ActionOrigin,
  ): Promise<StepResult> {
    const gate = this.rt.policyGate.gate(op, args, origin);
    if (gate.verdict === 'deny') return this.rt.policyGate.denied(op, args, origin, gate);
    let attempt = 0;
    for (;;) {
      attempt++;
      if (attempt === 1) {
        const over = this.chargeRepeat(op.id, op.tool, args);
        if (over) return { ok: false, failure: over, operationId: op.id };
      } else if (this.rt.policyGate.outOfCalls()) {
        // The gate let the first attempt through; a retry must fit the budget too.
        const message = `${this.rt.ledger.run.used.toolCalls} of ${this.rt.binding.contract.budgets.toolCalls} tool calls used before ${op.tool} could be retried`;
        return { ok: false, failure: { class: 'budget_exhausted', message }, operationId: op.id };
      }
      const requestId = `${this.rt.binding.runId}:${op.id}:r${this.rt.ledger.run.used.toolCalls + 1}`;
      const outcome = await this.rt.executor.call({
        tool: op.tool,
        args,
        meta: this.rt.binding.meta(op.id),
        timeoutMs: this.rt.callTimeoutMs,
        ...this.rt.binding.signalOption(),
      });
      this.noteRead(op.tool, args, outcome.kind === 'ok');
      if (outcome.kind === 'ok') {
        const evidence = this.rt.ledger.evidenceRecord(
          op.id,
          op.tool,
          requestId,
          outcome.result,
          outcome.trust,
        );
        this.rt.ledger.commit({
          ...this.rt.ledger.toExecuting(),
          event: {
            type: 'action.read',
            operationId: op.id,
            requestId,
            resultClass: 'ok',
            policyRule: gate.rule,
            evidenceRefs: [evidence.id],
          },
          action: {
            ...this.rt.ledger.actionRecord(op.id, op.tool, 'read', args, 'confirmed', origin),
            attempts: attempt,
            result: outcome.result,
          },
          evidence: [evidence],
          used: { toolCalls: 1 },
        });
        return { ok: true };
      }
      const failure = toFailure(outcome, false);
      this.rt.ledger.commit({
        ...this.rt.ledger.toExecuting(),
        event: {
          type: 'action.read-failed',
          operationId: op.id,
          requestId,
          resultClass: failure.class,
          reason: failure.message,
        },
        used: { toolCalls: 1 },
      });
      const retried = await this.rt.failures.retryIfWorthIt(failure, attempt, op.id, false);
      if (!retried) return { ok: false, failure, operationId: op.id };
    }
  }

  /** A read made to check something (precondition, postcondition, reconciliation, completion). */
  async freshRead(
    tool: string,
    args: Record<string, unknown>,
    purpose: string,
  ): Promise<{ ok: true; result: unknown } | { ok: false; message: string; class: FailureClass }> {
    let requestId: string;
    let outcome: CallOutcome;
    for (let attempt = 1; ; attempt++) {
      // Every attempt, a retry too, must fit the tool-call budget.
      if (this.rt.policyGate.outOfCalls())
        return { ok: false, message: 'tool-call budget used up', class: 'budget_exhausted' };
      if (attempt === 1) {
        const over = this.chargeRepeat(purpose, tool, args);
        if (over) return { ok: false, message: over.message, class: over.class };
      }
      requestId = `${this.rt.binding.runId}:${purpose}:r${this.rt.ledger.run.used.toolCalls + 1}`;
      outcome = await this.rt.executor.call({
        tool,
        args,
        meta: this.rt.binding.meta(purpose),
        timeoutMs: this.rt.callTimeoutMs,
        ...this.rt.binding.signalOption(),
      });
      this.noteRead(tool, args, outcome.kind === 'ok');
      if (outcome.kind === 'ok') break;
      const failure = toFailure(outcome, false);
      this.rt.ledger.commit({
        ...this.rt.ledger.toExecuting(),
        event: {
          type: 'action.read-failed',
          operationId: purpose,
          requestId,
          resultClass: failure.class,
          reason: outcome.message,
        },
        used: { toolCalls: 1 },
      });
      // A check's read is retried by class like any other call: a blip is not a verdict.
      if (!(await this.rt.failures.retryIfWorthIt(failure, attempt, purpose, false))) {
        return { ok: false, message: outcome.message, class: failure.class };
      }
    }
    const evidence = this.rt.ledger.evidenceRecord(
      purpose,
      tool,
      requestId,
      outcome.result,
      outcome.trust,
    );
    this.rt.ledger.commit({
      event: {
        type: 'evidence.fresh-read',
        operationId: purpose,
        requestId,
        resultClass: 'ok',
        evidenceRefs: [evidence.id],
      },
      evidence: [evidence],
      used: { toolCalls: 1 },
    });
    return { ok: true, result: outcome.result };
  }

  /** Remembers whether a read came back ok, for {@link chargeRepeat}. Free while none failed. */
  private noteRead(tool: string, args: Record<string, unknown>, ok: boolean): void {
    if (ok && this.failedReads.size === 0) return;
    const key = requestKey(tool, args);
    if (ok) this.failedReads.delete(key);
    else this.failedReads.add(key);
  }

  /**
   * A read that repeats an identical one which did not come back ok is a retry on the wire,
   * whatever it is for (a postcondition re-reading what a failed precondition read, say): that
   * is what the contract's retry budget counts. So it takes one from the budget, and with none
   * left it is not made: the failure says why.
   */
  private chargeRepeat(
    operationId: string,
    tool: string,
    args: Record<string, unknown>,
  ): Failure | undefined {
    if (this.failedReads.size === 0 || !this.failedReads.has(requestKey(tool, args)))
      return undefined;
    if (
      this.rt.safeguards.budgets &&
      this.rt.ledger.run.used.retries >= this.rt.binding.contract.budgets.retries
    )
      return {
        class: 'budget_exhausted',
        message: `retry budget used up: ${tool} failed last time and calling it again is a retry`,
      };
    this.rt.ledger.commit({
      event: {
        type: 'supervisor.retry',
        operationId,
        reason: `${tool} with these arguments failed last time: calling it again is a retry`,
      },
      used: { retries: 1 },
    });
    return undefined;
  }
}
