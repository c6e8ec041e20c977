import type { Operation } from './blueprint.js';
import { verifyChecks, verifyCompletion } from './verifier.js';
import type { PendingChange } from './step-result.js';
import type { RunRoles } from './run-roles.js';

/**
 * Verification: a confirmed write's postconditions, read fresh, and the run's finish — the
 * completion checks, then the terminal record (completed, recommended, shadowed, or decided
 * not to act).
 */
export class Verification {
  constructor(private readonly rt: RunRoles) {}

  /** Whether `op` has postconditions to verify (the hot path skips an await when not). */
  mustVerify(op: Operation): boolean {
    return this.rt.safeguards['verify-before-finish'] && op.postconditions.length > 0;
  }

  /** Reads fresh what a confirmed write should have made true, and records the verdict. */
  async verifyPostconditions(op: Operation): Promise<{ ok: boolean; failures: string[] }> {
    if (!this.mustVerify(op)) return { ok: true, failures: [] };
    const verdict = await verifyChecks(
      op.postconditions,
      this.rt.ledger.scope(this.rt.ledger.actions.get(op.id)),
      (tool, a) => this.rt.reads.freshRead(tool, a, `${op.id}:postcondition`),
    );
    this.rt.ledger.commit({
      event: {
        type: verdict.ok ? 'verify.postconditions-held' : 'verify.postconditions-failed',
        operationId: op.id,
        reason: verdict.failures.join('; ') || 'all postconditions hold',
      },
    });
    return verdict;
  }

  /** Completes the run once its completion checks hold (or stops it when they do not). */
  async finish(summary: string): Promise<void> {
    if (this.rt.safeguards['verify-before-finish']) {
      const gathered = new Set(this.rt.ledger.evidence.map((e) => e.operationId ?? ''));
      // Completion checks describe the world after the writes; in shadow and recommend modes
      // the writes are only proposed, so only the evidence and invariants are checked.
      const proposeOnly =
        this.rt.binding.contract.autonomy === 'shadow' ||
        this.rt.binding.contract.autonomy === 'recommend';
      const verdict = await verifyCompletion(
        this.rt.binding.contract,
        proposeOnly ? [] : this.rt.binding.blueprint.completion,
        this.rt.ledger.scope(),
        gathered,
        (tool, a) => this.rt.reads.freshRead(tool, a, 'completion'),
      );
      if (!verdict.ok) {
        this.rt.failures.stop('failed', 'verification-failed', verdict.failures.join('; '));
        return;
      }
    }
    const proposed = [...this.rt.ledger.actions.values()].filter((a) => a.status === 'proposed');
    const skipped = [...this.rt.ledger.actions.values()]
      .filter((a) => a.status === 'skipped')
      .map((a) => a.operationId);
    // A write skipped because its effect was already in place was not declined.
    const inPlace = new Set(
      [...this.rt.ledger.actions.values()]
        .filter((a) => isAlreadyDone(a.result))
        .map((a) => a.operationId),
    );
    const type =
      this.rt.binding.contract.autonomy === 'recommend'
        ? 'run.recommendation'
        : this.rt.binding.contract.autonomy === 'shadow'
          ? 'run.shadowed'
          : 'run.completed';
    const change: PendingChange = {
      to: 'completed',
      event: {
        type,
        reason: summary,
        // The claim of success cites the evidence it rests on.
        evidenceRefs: this.rt.ledger.evidence.map((e) => e.id),
        data: {
          proposed: proposed.map((a) => ({
            operationId: a.operationId,
            tool: a.tool,
            args: a.args,
          })),
          skipped,
          verified: this.rt.safeguards['verify-before-finish'],
        },
      },
    };
    // An investigation whose findings ruled out a write it could have made ends with its
    // answer on record: it decided not to act (the answer "do not" is a result, not a failure).
    const declined = skipped.filter(
      (id) =>
        !inPlace.has(id) &&
        this.rt.binding.blueprint.operations.find((o) => o.id === id)?.kind === 'write',
    );
    if (this.rt.binding.contract.decisionBoundary === 'investigate' && declined.length > 0)
      change.stop = {
        reason: 'decided-not-to-act',
        detail: `the findings ruled out ${declined.join(', ')}`,
      };
    if (this.rt.safeguards.checkpoint)
      change.checkpoint = { boundary: 'verified-outcome', data: { summary } };
    this.rt.ledger.commit(change);
  }
}

/** Whether an action's result marks a write skipped because its effect was already in place. */
function isAlreadyDone(result: unknown): boolean {
  return typeof result === 'object' && result !== null && 'alreadyDone' in result;
}
