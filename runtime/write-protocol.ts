import type { Operation } from './blueprint.js';
import type { CallOutcome, CallRequest } from './executor.js';
import { APPROVAL_TOKEN_META, META } from './protocol.js';
import type { ActionOrigin } from './records.js';
import { DONE_STATUSES } from './records.js';
import { isTerminal } from './states.js';
import { toFailure, type StepResult } from './step-result.js';
import type { RunRoles } from './run-roles.js';

/**
 * The replay-safe write protocol: already done? then the gate (with approvals), the checks
 * before a send, intent committed with its idempotency key, the send, and its outcome —
 * confirmed, reconciled, or a failure for the supervisor — with the crash probes between
 * commits. Each probe sits between the same two commits it always did.
 */
export class WriteProtocol {
  constructor(private readonly rt: RunRoles) {}

  /** One write, replay-safe: gate and approvals, checks, intent with its key, then the send. */
  async write(
    op: Operation,
    args: Record<string, unknown>,
    origin: ActionOrigin,
  ): Promise<StepResult> {
    const existing = this.rt.ledger.actions.get(op.id);
    if (existing && DONE_STATUSES.has(existing.status) && this.rt.safeguards.checkpoint)
      return { ok: true };
    if (this.rt.options.probe) await this.rt.binding.probe('before-intent', op, 0);

    // Policy gate, with approvals obtained as the gate asks for them.
    let gate = this.rt.policyGate.gate(op, args, origin);
    if (gate.verdict === 'needs-approval') {
      const approval = await this.rt.approvalRequests.obtainApproval(op, args, origin);
      if (approval.status !== 'granted') {
        return {
          ok: false,
          failure: { class: 'approval_denied', message: approval.reason ?? 'approval denied' },
          operationId: op.id,
        };
      }
      // Waiting for a person is a step boundary: a cancel or pause given meanwhile counts now.
      if ((await this.rt.operatorDesk.handleOperator()) && isTerminal(this.rt.ledger.run.state))
        return { ok: true };
      gate = this.rt.policyGate.gate(op, args, origin);
    }
    if (gate.verdict === 'deny') return this.rt.policyGate.denied(op, args, origin, gate);
    if (gate.verdict === 'needs-approval') {
      return {
        ok: false,
        failure: { class: 'policy_denied', message: gate.reason },
        operationId: op.id,
      };
    }
    if (gate.verdict === 'shadow') {
      this.rt.ledger.commit({
        ...this.rt.ledger.toExecuting(),
        event: {
          type: 'action.proposed',
          operationId: op.id,
          policyRule: gate.rule,
          reason: gate.reason,
        },
        action: this.rt.ledger.actionRecord(op.id, op.tool, 'write', args, 'proposed', origin),
      });
      return { ok: true };
    }

    // Preconditions against freshly read state (or, without the safeguard, what the planner saw).
    if (op.preconditions.length > 0) {
      const pre = await this.rt.checks.checkFresh(op, op.preconditions, args, 'precondition');
      if (!pre.ok)
        return {
          ok: false,
          failure: {
            class: pre.lostAccess?.class ?? 'precondition_failed',
            message: pre.failures.join('; '),
          },
          operationId: op.id,
        };
    }

    // Claim-to-source checks, then whether someone else made the effect already, right before
    // the send. (The hot path skips an await when a write has neither check.)
    if (this.rt.checks.cites(op, args) || this.rt.checks.checksInPlace(op)) {
      const checked = await this.rt.checks.checkBeforeSend(
        op,
        this.rt.ledger.actionRecord(op.id, op.tool, 'write', args, 'skipped', origin),
      );
      if (checked) return checked;
    }

    const key = this.rt.binding.keyFor(op.id);
    const action = this.rt.ledger.actionRecord(op.id, op.tool, 'write', args, 'intended', origin);
    action.idempotencyKey = key;
    action.approvalId = this.rt.ledger.approvals.get(action.id)?.id ?? null;
    this.rt.ledger.commit({
      ...this.rt.ledger.toExecuting(),
      event: {
        type: 'action.intended',
        operationId: op.id,
        actionId: action.id,
        idempotencyKey: key,
        policyRule: gate.rule,
      },
      action,
    });
    if (this.rt.options.probe) await this.rt.binding.probe('after-intent', op, 0);
    return this.send(op, 1, false);
  }

  /**
   * Sends the intended write and follows it to a known outcome: confirmed, reconciled, or a
   * failure for the supervisor. `reconciling` marks a resend whose purpose is to learn the
   * outcome of an earlier, ambiguous send.
   */
  async send(op: Operation, firstAttempt: number, reconciling: boolean): Promise<StepResult> {
    let attempt = firstAttempt;
    let asReconcile = reconciling;
    for (; ; attempt++) {
      const action = this.rt.ledger.mustAction(op.id);
      // A fresh write was gated with its intent; every other send must fit the budgets too.
      if (this.rt.safeguards.budgets && (attempt > firstAttempt || firstAttempt > 1)) {
        const gate = this.rt.policyGate.gate(op, action.args, action.origin, true);
        if (gate.verdict === 'deny')
          return this.rt.policyGate.denied(op, action.args, action.origin, gate);
      }
      const key = this.rt.safeguards.idempotency
        ? action.idempotencyKey
        : this.rt.binding.keyFor(op.id);
      if (this.rt.options.probe) await this.rt.binding.probe('before-send', op, attempt);
      const requestId = `${this.rt.binding.runId}:${op.id}:w${attempt}`;
      const approval = action.approvalId ? this.rt.ledger.approvals.get(action.id) : undefined;
      const meta = this.rt.binding.meta(op.id);
      if (key) meta[META.idempotencyKey] = key;
      if (approval?.token) meta[APPROVAL_TOKEN_META] = approval.token;
      const request: CallRequest = {
        tool: op.tool,
        args: action.args,
        meta,
        timeoutMs: this.rt.callTimeoutMs,
      };
      if (this.rt.options.signal) request.signal = this.rt.options.signal;
      const received = await this.rt.executor.call(request);
      // A garbled reply to a write says nothing about whether the write happened: ambiguous.
      const outcome: CallOutcome =
        received.kind === 'error' && received.class === 'malformed_reply'
          ? { kind: 'no-reply', reason: 'timeout', message: received.message }
          : received;
      const sent = { toolCalls: 1, externalWrites: 1 };

      if (outcome.kind === 'ok') {
        if (this.rt.options.probe) await this.rt.binding.probe('before-result-saved', op, attempt);
        const status = asReconcile ? 'reconciled' : 'confirmed';
        this.rt.reconciler.confirm(
          op,
          action,
          status,
          outcome.result,
          outcome.trust,
          requestId,
          key,
          sent,
          attempt,
        );
        if (this.rt.options.probe) await this.rt.binding.probe('after-result-saved', op, attempt);
        if (this.rt.verification.mustVerify(op)) {
          const verified = await this.rt.verification.verifyPostconditions(op);
          if (!verified.ok) {
            // The write is confirmed but its effect cannot be seen: never carry on as if it were.
            this.rt.failures.stop('failed', 'verification-failed', verified.failures.join('; '));
            return { ok: true };
          }
        }
        if (this.rt.options.probe) await this.rt.binding.probe('before-advance', op, attempt);
        return { ok: true };
      }

      if (outcome.kind === 'no-reply') {
        this.rt.ledger.commit({
          event: {
            type: 'action.ambiguous',
            operationId: op.id,
            actionId: action.id,
            requestId,
            idempotencyKey: key,
            resultClass: 'ambiguous',
            reason: outcome.message,
            data: { sent: true },
          },
          action: {
            ...action,
            status: 'ambiguous',
            attempts: attempt,
            errorClass: 'ambiguous',
            updatedAt: this.rt.clock.now(),
          },
          used: sent,
        });
        if (!this.rt.safeguards.reconcile) {
          // Without reconciliation: send again and hope.
          const spent = this.rt.reconciler.countResend(op, 'no reply: resending blindly');
          if (spent) return spent;
          continue;
        }
        const next = await this.rt.reconciler.reconcile(op);
        if (next === 'done') return { ok: true };
        if (next === 'resend' || next === 'absent') {
          const checked = next === 'absent' ? await this.rt.checks.checkAbsent(op) : undefined;
          if (checked) return checked;
          asReconcile = op.idempotent;
          const spent = this.rt.reconciler.countResend(
            op,
            'reconciled: resending with the same key',
          );
          if (spent) return spent;
          continue;
        }
        return {
          ok: false,
          failure: { class: 'ambiguous', message: next.unresolved },
          operationId: op.id,
        };
      }

      const failure = toFailure(outcome, true);
      this.rt.ledger.commit({
        event: {
          type: 'action.failed-attempt',
          operationId: op.id,
          actionId: action.id,
          requestId,
          idempotencyKey: key,
          resultClass: failure.class,
          reason: failure.message,
        },
        action: {
          ...action,
          attempts: attempt,
          errorClass: failure.class,
          updatedAt: this.rt.clock.now(),
        },
        used: sent,
      });
      const retried = await this.rt.failures.retryIfWorthIt(failure, attempt, op.id, true);
      if (!retried) return { ok: false, failure, operationId: op.id };
      // The write did not happen, and the world went on while the run waited: a cited source
      // may have changed, or a colleague made the effect, meanwhile.
      if (this.rt.checks.cites(op, action.args) || this.rt.checks.checksInPlace(op)) {
        const checked = await this.rt.checks.checkBeforeSend(op, this.rt.ledger.mustAction(op.id));
        if (checked) return checked;
      }
    }
  }
}
