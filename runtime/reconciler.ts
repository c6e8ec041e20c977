import type { Operation } from './blueprint.js';
import { evaluate, extendScope, resolveValue } from './predicate.js';
import type { ActionRecord, BudgetUse } from './records.js';
import { mayHaveBeenSent, type StepResult, type PendingChange } from './step-result.js';
import type { RunRoles } from './run-roles.js';

/**
 * Settling a write whose outcome is unknown: by a resend under the same key where the
 * provider honours keys, else by its reconcile query; on resume, every open write before the
 * planner runs. Also commits a confirmed outcome (with its evidence, the used approval and a
 * checkpoint) and charges a resend to the retry budget.
 */
export class Reconciler {
  constructor(private readonly rt: RunRoles) {}

  /**
   * Learns what an ambiguous write did before anything else happens: where the provider
   * honours keys, a resend with the same key is the question; otherwise its reconcile query.
   * Neither possible: the run waits for a person.
   */
  async reconcile(op: Operation): Promise<'done' | 'resend' | 'absent' | { unresolved: string }> {
    const action = this.rt.ledger.mustAction(op.id);
    // A write that cites sources asks its query when it has one: a resend under the same key
    // would file citations checked before the wait, and a source may have changed since.
    if (
      op.idempotent &&
      this.rt.safeguards.idempotency &&
      !(this.rt.checks.cites(op, action.args) && op.reconcile)
    )
      return 'resend';
    if (!op.reconcile) {
      return {
        unresolved: `${op.tool} gives no idempotency and no query to tell whether the write happened`,
      };
    }
    const args = Object.fromEntries(
      Object.entries(op.reconcile.read.args).map(([k, v]) => [
        k,
        resolveValue(v, this.rt.ledger.scope(action)),
      ]),
    );
    const read = await this.rt.reads.freshRead(op.reconcile.read.tool, args, `${op.id}:reconcile`);
    if (!read.ok)
      return { unresolved: `reconcile query ${op.reconcile.read.tool} failed: ${read.message}` };
    const found = evaluate(
      op.reconcile.found,
      extendScope(this.rt.ledger.scope(action), { fresh: read.result }),
    );
    if (!found) {
      this.rt.ledger.commit({
        event: {
          type: 'action.reconciled',
          operationId: op.id,
          actionId: action.id,
          reason: 'effect absent: safe to resend',
          data: { found: false },
        },
      });
      return 'absent';
    }
    this.confirm(
      op,
      action,
      'reconciled',
      read.result,
      'trusted',
      null,
      action.idempotencyKey,
      {},
      action.attempts,
    );
    const verified = await this.rt.verification.verifyPostconditions(op);
    if (!verified.ok)
      this.rt.failures.stop('failed', 'verification-failed', verified.failures.join('; '));
    return 'done';
  }

  /**
   * On resume: every write whose outcome is unknown is reconciled before the planner runs.
   * `inFlight`: a send may have been cut off by the crash (not when the run was waiting out a
   * failure: every send before the wait had its outcome saved, and counted).
   */
  async reconcileOpenActions(inFlight: boolean): Promise<StepResult> {
    for (const action of [...this.rt.ledger.actions.values()]) {
      if (!mayHaveBeenSent(action)) continue;
      const op = this.rt.binding.operation(action.operationId);
      if (!op) continue;
      this.rt.ledger.commit({
        ...this.rt.ledger.toExecuting(),
        event: {
          type: 'action.ambiguous',
          operationId: op.id,
          actionId: action.id,
          resultClass: 'ambiguous',
          reason: `found ${action.status} on resume`,
        },
        action: { ...action, status: 'ambiguous', updatedAt: this.rt.clock.now() },
        // A send is counted when its outcome is saved: one cut off by the crash may have gone
        // out uncounted. Budgets count it as used, so what left on the wire never exceeds them.
        ...(action.status === 'intended' && inFlight
          ? { used: { toolCalls: 1, externalWrites: 1 } }
          : {}),
      });
      if (!this.rt.safeguards.reconcile) {
        const spent = this.countResend(op, 'found on resume: resending blindly');
        if (spent) return spent;
        const result = await this.rt.writes.send(op, action.attempts + 1, false);
        if (!result.ok) return result;
        continue;
      }
      const next = await this.reconcile(op);
      if (next === 'done') continue;
      if (next === 'resend' || next === 'absent') {
        const checked = next === 'absent' ? await this.rt.checks.checkAbsent(op) : undefined;
        if (checked && !checked.ok) return checked;
        if (checked) continue;
        const spent = this.countResend(op, 'reconciled on resume: resending with the same key');
        if (spent) return spent;
        const result = await this.rt.writes.send(op, action.attempts + 1, op.idempotent);
        if (!result.ok) return result;
        continue;
      }
      return {
        ok: false,
        failure: { class: 'ambiguous', message: next.unresolved },
        operationId: op.id,
      };
    }
    return { ok: true };
  }

  /**
   * A write sent again after an unknown outcome is a retry, whichever incarnation sends it: it
   * counts against the retry budget, and is not sent once the budget is spent (the outcome
   * stays unknown, and the run stops saying so). Returns that failure, or nothing to go on.
   */
  countResend(op: Operation, reason: string): StepResult | undefined {
    const budget = this.rt.binding.contract.budgets.retries;
    if (this.rt.safeguards.budgets && this.rt.ledger.run.used.retries >= budget) {
      return {
        ok: false,
        failure: {
          class: 'budget_exhausted',
          message: `retry budget of ${budget} used up before ${op.tool} could be resent`,
        },
        operationId: op.id,
      };
    }
    this.rt.ledger.commit({
      event: { type: 'supervisor.retry', operationId: op.id, reason },
      used: { retries: 1 },
    });
    return undefined;
  }

  /** Commits a write's known outcome: action, evidence, the approval it used, and a checkpoint. */
  confirm(
    op: Operation,
    action: ActionRecord,
    status: 'confirmed' | 'reconciled',
    result: unknown,
    trust: 'trusted' | 'untrusted',
    requestId: string | null,
    key: string | null,
    used: Partial<BudgetUse>,
    attempt: number,
  ): void {
    const evidence = this.rt.ledger.evidenceRecord(op.id, op.tool, requestId, result, trust);
    const approval = action.approvalId ? this.rt.ledger.approvals.get(action.id) : undefined;
    const change: PendingChange = {
      ...this.rt.ledger.toExecuting(),
      event: {
        type: status === 'confirmed' ? 'action.confirmed' : 'action.reconciled',
        operationId: op.id,
        actionId: action.id,
        requestId,
        idempotencyKey: key,
        resultClass: 'ok',
        evidenceRefs: [evidence.id],
        data: { sent: requestId !== null },
      },
      action: {
        ...action,
        status,
        attempts: attempt,
        result,
        errorClass: null,
        updatedAt: this.rt.clock.now(),
      },
      evidence: [evidence],
      used,
    };
    if (approval)
      change.approval = { ...approval, status: 'consumed', consumedAt: this.rt.clock.now() };
    if (this.rt.safeguards.checkpoint)
      change.checkpoint = { boundary: 'confirmed-action', data: { operationId: op.id, status } };
    this.rt.ledger.commit(change);
  }
}
