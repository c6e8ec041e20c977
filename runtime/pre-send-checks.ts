import type { Operation } from './blueprint.js';
import { expandCitations, type ExpandedCitations } from './citation-checks.js';
import { extendScope } from './predicate.js';
import type { ActionRecord } from './records.js';
import { verifyChecks, type FreshRead, type Verdict } from './verifier.js';
import type { StepResult } from './step-result.js';
import type { RunRoles } from './run-roles.js';

/**
 * The checks made before a write is sent, against freshly read state (or, without the
 * `fresh-read` safeguard, what the planner saw): preconditions, claim-to-source citations, and
 * whether the effect is already in place. A failed check skips the write or stops the run;
 * it never sends.
 */
export class PreSendChecks {
  constructor(private readonly rt: RunRoles) {}

  /**
   * Before a write found absent is sent again: its citations, checked again (the world went on
   * while its outcome was unknown). A result says to skip the write or to stop; undefined, to
   * send.
   */
  async checkAbsent(op: Operation): Promise<StepResult | undefined> {
    const action = this.rt.ledger.mustAction(op.id);
    return this.cites(op, action.args) ? this.checkBeforeSend(op, action) : undefined;
  }

  /**
   * The checks made right before a send: the claim-to-source checks (`citations`), then whether
   * the effect is already in place (`alreadyDone`), last, so nothing the run does comes between
   * that check and the write. Checks of several sources are not atomic: when a read of the pass
   * had to be retried, the world went on during the wait, and the pass is made again, so the
   * send follows reads that came back in one go (each repeat spends retries, so it ends). A
   * result says to skip the write or to stop; undefined, to send. Callers ask {@link cites} or
   * {@link checksInPlace} first.
   */
  async checkBeforeSend(op: Operation, action: ActionRecord): Promise<StepResult | undefined> {
    for (;;) {
      const retries = this.rt.ledger.run.used.retries;
      // A write never cites a source that no longer says what it is cited for. A failed check
      // is not an error to retry or replan: the write is skipped, with the reason, so the
      // blueprint's fallback (an operation whose `when` sees this one absent) runs.
      const uncited = this.cites(op, action.args) && (await this.citationsFail(op, action));
      if (uncited) return uncited;
      // Someone else may have made the effect already: then sending would make it twice.
      const inPlace = this.checksInPlace(op) && (await this.alreadyInPlace(op, action));
      if (inPlace) return inPlace;
      if (!this.cites(op, action.args) || this.rt.ledger.run.used.retries === retries)
        return undefined;
    }
  }

  /**
   * The write's claim-to-source checks (`citations`), read fresh: a write never cites a source
   * that no longer says what it is cited for. When one fails the write is not sent: the
   * operation is recorded `skipped`, from `action`, with the reason, so the blueprint's fallback
   * (an operation whose `when` sees this one absent) runs. A source the run may no longer read
   * (lost access), or could not read even after its retries, is no verdict on the source: the
   * result says to stop, with why. Undefined when every check holds. Callers ask {@link cites} first.
   */
  private async citationsFail(
    op: Operation,
    action: ActionRecord,
  ): Promise<StepResult | undefined> {
    const { checks, malformed } = this.citationsFor(op, action.args);
    // Citations over a value that is not a list cannot be checked: the write is not sent.
    const cited: Verdict =
      malformed.length > 0
        ? { ok: false, failures: malformed }
        : await this.checkFresh(op, checks, action.args, 'citation');
    const unread = cited.lostAccess ?? cited.unread;
    if (unread)
      return {
        ok: false,
        failure: { class: unread.class, message: cited.failures.join('; ') },
        operationId: op.id,
      };
    if (cited.ok) return undefined;
    this.rt.ledger.commit({
      ...this.rt.ledger.toExecuting(),
      event: {
        type: 'action.skipped',
        operationId: op.id,
        policyRule: 'source-check',
        reason: `citation check failed: ${cited.failures.join('; ')}`,
        data: { citations: cited.failures },
      },
      action: { ...action, status: 'skipped', updatedAt: this.rt.clock.now() },
    });
    return { ok: true };
  }

  /**
   * Whether the write's effect is already in place, made by someone else (its `alreadyDone`
   * check, read fresh): then the operation is recorded `skipped`, from `action`, and the result
   * says to go on; lost access says to stop; otherwise undefined, and the write goes ahead.
   */
  private async alreadyInPlace(
    op: Operation,
    action: ActionRecord,
  ): Promise<StepResult | undefined> {
    if (!op.alreadyDone) return undefined;
    const done = await this.checkFresh(op, [op.alreadyDone], action.args, 'already-done');
    if (done.lostAccess)
      return {
        ok: false,
        failure: { class: done.lostAccess.class, message: done.failures.join('; ') },
        operationId: op.id,
      };
    if (!done.ok) return undefined;
    this.rt.ledger.commit({
      ...this.rt.ledger.toExecuting(),
      event: {
        type: 'action.skipped',
        operationId: op.id,
        reason: `already in place: ${op.alreadyDone.description}`,
      },
      action: {
        ...action,
        status: 'skipped',
        result: { alreadyDone: op.alreadyDone.description },
        updatedAt: this.rt.clock.now(),
      },
    });
    return { ok: true };
  }

  /**
   * Runs a write's checks (its preconditions or its citations) against freshly read state, or,
   * without the `fresh-read` safeguard, against what the planner already saw.
   */
  async checkFresh(
    op: Operation,
    checks: Operation['preconditions'],
    args: Record<string, unknown>,
    purpose: 'already-done' | 'precondition' | 'citation',
  ): Promise<Verdict> {
    if (checks.length === 0) return { ok: true, failures: [] };
    const scope = extendScope(this.rt.ledger.results, { args });
    const read: FreshRead = this.rt.safeguards['fresh-read']
      ? (tool, a) => this.rt.reads.freshRead(tool, a, `${op.id}:${purpose}`)
      : (tool, a) => {
          // What the planner already saw, if it read the same thing.
          const seen = [...this.rt.ledger.evidence]
            .reverse()
            .find(
              (e) =>
                e.tool === tool &&
                sameArgs(this.rt.ledger.actions.get(e.operationId ?? '')?.args, a),
            );
          return seen
            ? Promise.resolve({ ok: true, result: seen.content })
            : this.rt.reads.freshRead(tool, a, `${op.id}:${purpose}`);
        };
    return verifyChecks(checks, scope, read);
  }

  /**
   * The claim-to-source checks of a write sent with `args`: its operation's own, and every
   * citation with `each` declared for its tool (by any operation of the blueprint), made
   * concrete over the arguments as sent — so neither a claim a planner added nor a filing under
   * another operation goes unchecked. None without the `source-check` safeguard.
   */
  citationsFor(op: Operation, args: Record<string, unknown>): ExpandedCitations {
    const perTool = this.rt.binding.toolCitations.get(op.tool);
    if (!this.rt.safeguards['source-check'] || (op.citations.length === 0 && !perTool))
      return { checks: [], malformed: [] };
    const own = op.citations.filter((c) => c.each === undefined);
    return expandCitations([...own, ...(perTool ?? [])], { ...this.rt.ledger.results, args });
  }

  /** Whether a write sent with `args` has claim-to-source checks to run. */
  cites(op: Operation, args: Record<string, unknown>): boolean {
    const { checks, malformed } = this.citationsFor(op, args);
    return checks.length > 0 || malformed.length > 0;
  }

  /** Whether a write has an `alreadyDone` check to run (gated by `fresh-read`). */
  checksInPlace(op: Operation): boolean {
    return op.alreadyDone !== undefined && this.rt.safeguards['fresh-read'];
  }
}

function sameArgs(a: Record<string, unknown> | undefined, b: Record<string, unknown>): boolean {
  if (!a) return false;
  return Object.entries(b).every(([k, v]) => JSON.stringify(a[k]) === JSON.stringify(v));
}
