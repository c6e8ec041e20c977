import type { Operation } from './blueprint.js';
import { proposalSchema, type Proposal } from './planner.js';
import { PlannerCallError } from './planner-call-error.js';
import type { ActionOrigin } from './records.js';
import { isLegalTransition, isTerminal } from './states.js';
import { decide, type Failure } from './supervisor.js';
import { formatIssues } from './validate.js';
import { checkWrittenPlan, isObjectiveOnly, writtenBlueprint } from './written-plan.js';
import type { StepResult } from './step-result.js';
import type { RunRoles, RunOutcome } from './run-roles.js';

/**
 * The run loop: at each turn, the operator's commands and the time and cost budgets, then the
 * planner's proposal, validated, and dispatched — a read or write to its step, a written plan
 * adopted, a replan, a skip, a finish, an escalation. Owns the planner's failed calls and
 * model or prompt changes mid-run.
 */
export class RunLoop {
  /** What the last proposal cost, the estimate for the next (0 until a planner reports usage). */
  private lastProposalCostUsd = 0;

  constructor(private readonly rt: RunRoles) {}

  /** Runs turns until the run is terminal or blocked, and returns how it ended. */
  async loop(): Promise<RunOutcome> {
    let invalidOutputs = 0;
    // Consecutive planner calls that failed for a reason other than their output (the backoff's attempt).
    let failedCalls = 0;
    for (;;) {
      if (isTerminal(this.rt.ledger.run.state) || this.rt.ledger.run.state === 'blocked')
        return this.rt.ledger.outcome();
      // Nothing to await on the common path: no command and no abort.
      const command = this.rt.operatorDesk.pollOperator();
      if (command) {
        await this.rt.operatorDesk.actOnOperator(command);
        continue;
      }
      const elapsed = this.rt.clock.now() - this.rt.ledger.run.createdAt;
      if (this.rt.safeguards.budgets && elapsed >= this.rt.binding.contract.budgets.virtualTimeMs) {
        this.rt.failures.stop(
          'failed',
          'budget-exhausted',
          `virtual time budget of ${this.rt.binding.contract.budgets.virtualTimeMs} ms used up`,
        );
        continue;
      }

      // A proposal is paid for before it can be judged: stop before one the cost budget cannot
      // cover, taking the last proposal's cost as the estimate (a run's context only grows).
      const { costUsd } = this.rt.binding.contract.budgets;
      if (
        this.rt.safeguards.budgets &&
        costUsd > 0 &&
        this.rt.ledger.run.used.costUsd + this.lastProposalCostUsd > costUsd
      ) {
        this.rt.failures.stop(
          'failed',
          'budget-exhausted',
          `the next proposal would take the model cost past the $${costUsd} budget ($${this.rt.ledger.run.used.costUsd.toFixed(4)} spent, the last proposal cost $${this.lastProposalCostUsd.toFixed(4)})`,
        );
        continue;
      }

      const context = this.rt.plannerContext.workingContext();
      this.rt.plannerContext.resumePacket = undefined;
      let raw: unknown;
      let proposal: Proposal | undefined;
      try {
        if (this.rt.binding.builtInPlanner) {
          // Typed proposals from the runtime's own planner: parsing them would check this code
          // against itself. Whatever any other planner answers is validated below.
          proposal = this.rt.binding.builtInPlanner.next(context);
        } else {
          const answer = await this.rt.binding.planner.propose(context);
          failedCalls = 0;
          raw = answer.proposal;
          const usage = answer.usage;
          if (usage && (usage.costUsd > 0 || usage.inputTokens + usage.outputTokens > 0)) {
            this.rt.ledger.commit({
              event: { type: 'planner.usage', data: { ...usage } },
              used: { costUsd: usage.costUsd },
            });
            this.lastProposalCostUsd = usage.costUsd;
          }
        }
      } catch (error) {
        if (PlannerCallError.isInstance(error) && error.failureClass !== 'invalid_output') {
          await this.plannerCallFailed(error, ++failedCalls);
          continue;
        }
        raw = { invalid: error instanceof Error ? error.message : String(error) };
      }
      // A proposal from a model or prompt that changed during the call is not acted on.
      if (this.noticePlannerSwap()) continue;
      if (proposal) {
        invalidOutputs = 0;
        await this.handleProposal(proposal);
        continue;
      }
      const parsed = proposalSchema.safeParse(raw);
      const refused = parsed.success
        ? this.refusal(parsed.data)
        : formatIssues(parsed.error).join('; ');
      if (refused !== undefined || !parsed.success) {
        invalidOutputs++;
        const failure: Failure = { class: 'invalid_output', message: refused ?? '' };
        const decision = decide(
          this.rt.failures.supervisorInput(failure, invalidOutputs, 'planner', false),
        );
        if (decision.kind === 'regenerate') {
          this.rt.ledger.commit({
            event: {
              type: 'planner.invalid-output',
              reason: decision.reason,
              resultClass: 'invalid_output',
            },
            used: { retries: 1 },
          });
          continue;
        }
        this.rt.failures.handleFailure(failure, 'planner', false);
        continue;
      }
      invalidOutputs = 0;
      await this.handleProposal(parsed.data);
    }
  }

  /**
   * A planner call failed for a reason the supervisor acts on (its model provider's rate limit,
   * outage, timeout, refused key): wait out the retry-after or back off and ask again within
   * the retry budget, or stop — by class alone, as for a tool. Nothing was proposed, so no
   * side effect can hang on it.
   */
  private async plannerCallFailed(error: PlannerCallError, attempt: number): Promise<void> {
    const failure: Failure = {
      class: error.failureClass,
      message: error.message,
      ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
    };
    const decision = decide(this.rt.failures.supervisorInput(failure, attempt, 'planner', false));
    if (decision.kind !== 'retry' && decision.kind !== 'wait') {
      this.rt.failures.handleFailure(failure, 'planner', false);
      return;
    }
    // `waiting`, not `retrying`: no action is in flight, the run waits before asking again.
    const moves = isLegalTransition(this.rt.ledger.run.state, 'waiting');
    this.rt.ledger.commit({
      ...(moves ? { to: 'waiting' as const } : {}),
      event: {
        type: decision.kind === 'retry' ? 'supervisor.retry' : 'supervisor.wait',
        operationId: 'planner',
        reason: decision.reason,
        resultClass: failure.class,
        data: { delayMs: decision.delayMs },
      },
      used: { retries: 1 },
    });
    if (decision.delayMs > 0) await this.rt.clock.sleep(decision.delayMs);
    this.rt.ledger.commit({
      ...(moves ? { to: 'ready' as const } : {}),
      event: { type: 'run.ready', reason: `asking the planner again after ${decision.delayMs} ms` },
    });
  }

  /** A model or prompt changed under the run: record it and replan, never carry on silently. */
  private noticePlannerSwap(): boolean {
    const now = this.rt.binding.planner.versions;
    const before = this.rt.binding.plannerVersions;
    if (now.model === before.model && now.prompt === before.prompt) return false;
    const reason = `planner changed mid-run: model ${before.model} → ${now.model}, prompt ${before.prompt} → ${now.prompt}`;
    this.rt.binding.plannerVersions = { ...now };
    this.rt.ledger.commit({
      to: 'planned',
      event: { type: 'plan.replanned', reason },
      plan: { reason, operations: this.rt.binding.blueprint.operations.map((o) => o.id) },
    });
    this.rt.ledger.commit({ to: 'ready', event: { type: 'run.ready', reason: 'replanned' } });
    return true;
  }

  /**
   * Why a well-formed proposal is still refused as `invalid_output`, or undefined: a plan is
   * written only in an objective-only run, and never drops, renames or changes an operation in
   * flight or done (see {@link checkWrittenPlan}).
   */
  private refusal(proposal: Proposal): string | undefined {
    if (proposal.kind !== 'plan') return undefined;
    if (!isObjectiveOnly(this.rt.binding.versionedBlueprint))
      return `kind: this run follows blueprint ${this.rt.binding.versionedBlueprint.id}; a plan is written only in an objective-only run`;
    const issues = checkWrittenPlan(proposal, {
      current: this.rt.binding.blueprint,
      actions: this.rt.ledger.actions,
      contract: this.rt.binding.contract,
      hasTool: (name) => this.rt.executor.hasTool(name),
    });
    return issues.length > 0 ? `plan refused: ${issues.join('; ')}` : undefined;
  }

  /** Stores a plan the planner wrote as the next plan version, then runs it. */
  private adoptPlan(proposal: Extract<Proposal, { kind: 'plan' }>): void {
    const written = { operations: proposal.operations, completion: proposal.completion };
    this.rt.plannerContext.lastFailure = undefined;
    this.rt.ledger.commit({
      to: 'planned',
      event: { type: 'plan.written', reason: proposal.reason },
      plan: { reason: proposal.reason, operations: written.operations.map((o) => o.id), written },
    });
    this.rt.binding.bindOperations(writtenBlueprint(written, this.rt.ledger.run.planVersion));
    this.rt.ledger.rebuildResults();
    this.rt.ledger.commit({
      to: 'ready',
      event: {
        type: 'plan.approved',
        reason: `plan version ${this.rt.ledger.run.planVersion} written`,
      },
      checkpoint: {
        boundary: 'approved-plan',
        data: { planVersion: this.rt.ledger.run.planVersion },
      },
    });
  }

  private async handleProposal(proposal: Proposal): Promise<void> {
    switch (proposal.kind) {
      case 'plan':
        this.adoptPlan(proposal);
        return;
      case 'finish':
        await this.rt.verification.finish(proposal.summary);
        return;
      case 'escalate':
        this.rt.failures.stop('blocked', 'tool-error', proposal.reason);
        return;
      case 'skip': {
        const op = this.rt.binding.operation(proposal.operationId);
        this.rt.ledger.commit({
          ...this.rt.ledger.toExecuting(),
          event: {
            type: 'action.skipped',
            operationId: proposal.operationId,
            reason: proposal.reason,
          },
          action: this.rt.ledger.actionRecord(
            op?.id ?? proposal.operationId,
            op?.tool ?? 'none',
            op?.kind ?? 'read',
            {},
            'skipped',
            'blueprint',
          ),
        });
        return;
      }
      case 'replan': {
        this.rt.plannerContext.lastFailure = undefined;
        this.rt.ledger.commit({
          to: 'planned',
          event: {
            type: 'plan.replanned',
            reason: proposal.reason,
            data: { refresh: proposal.refresh },
          },
          plan: {
            reason: proposal.reason,
            operations: this.rt.binding.blueprint.operations.map((o) => o.id),
          },
        });
        this.rt.ledger.commit({ to: 'ready', event: { type: 'run.ready', reason: 'replanned' } });
        for (const id of proposal.refresh) {
          const op = this.rt.binding.operation(id);
          if (!op || op.kind !== 'read') continue;
          const result = await this.step(op, this.rt.ledger.resolveArgs(op), 'blueprint');
          if (!result.ok) {
            this.rt.failures.handleFailure(result.failure, result.operationId, false);
            return;
          }
        }
        return;
      }
      case 'act': {
        const op = this.rt.binding.operation(proposal.operationId);
        const origin: ActionOrigin = proposal.origin.kind === 'content' ? 'content' : 'blueprint';
        const target: Operation =
          op && origin === 'blueprint'
            ? op
            : {
                id: proposal.operationId,
                description: 'proposed from content',
                tool: proposal.tool,
                kind: 'write',
                args: {},
                preconditions: [],
                postconditions: [],
                citations: [],
                idempotent: false,
              };
        const result = await this.step(target, proposal.args, origin);
        if (!result.ok)
          this.rt.failures.handleFailure(
            result.failure,
            result.operationId,
            target.kind === 'write',
          );
        return;
      }
    }
  }

  /** One action: a read is one call; a write goes through the full replay-safe protocol. */
  private step(
    op: Operation,
    args: Record<string, unknown>,
    origin: ActionOrigin,
  ): Promise<StepResult> {
    if (op.kind === 'read') return this.rt.reads.read(op, args, origin);
    return this.rt.writes.write(op, args, origin);
  }
}
