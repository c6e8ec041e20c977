import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { parseBlueprint, type Blueprint, type CitationCheck, type Operation } from './blueprint.js';
import { expandCitations, type ExpandedCitations } from './citation-checks.js';
import type { Clock } from './clock.js';
import { requestKey } from './canonical-json.js';
import { contentHash, parseContract, type Contract, type StopReason } from './contract.js';
import type { RunCredential } from './credential.js';
import type { CrashProbe, ProbeHandler } from './crash-probe.js';
import { FaultlineError } from './errors.js';
import { Executor, type CallOutcome, type CallRequest } from './executor.js';
import { idempotencyKey, perSendKey } from './idempotency-key.js';
import { noOperator, type Operator, type OperatorCommand } from './operator.js';
import { proposalSchema, type Planner, type Proposal } from './planner.js';
import { PlannerCallError } from './planner-call-error.js';
import { approvalRequired, checkAction, type GateAction } from './policy.js';
import { evaluate, extendScope, resolveValue } from './predicate.js';
import { APPROVAL_TOKEN_META, META } from './protocol.js';
import type {
  ActionOrigin,
  ActionRecord,
  ApprovalRecord,
  BudgetUse,
  EvidenceRecord,
  RunRecord,
  RunVersions,
} from './records.js';
import { DONE_STATUSES } from './records.js';
import { withSafeguards, type Safeguards } from './safeguards.js';
import { ScriptedPlanner } from './scripted-planner.js';
import { holdsStopReason, isLegalTransition, isTerminal, type WorkflowState } from './states.js';
import type { Change, RunStore } from './store.js';
import { decide, type Failure } from './supervisor.js';
import { formatIssues } from './validate.js';
import { verifyChecks, verifyCompletion, type FreshRead, type Verdict } from './verifier.js';
import type { FailureClass } from './failure-class.js';
import type { OperationView, ResumePacket, WorkingContext } from './working-context.js';
import {
  checkWrittenPlan,
  emptyPlan,
  isObjectiveOnly,
  latestWrittenPlan,
  writtenBlueprint,
  type Planning,
} from './written-plan.js';

/** Everything a runtime instance is handed; it reaches nothing else. */
export interface RuntimeOptions {
  store: RunStore;
  /** A connected MCP client to the world's tools. */
  client: Client;
  clock: Clock;
  credential: RunCredential;
  operator?: Operator;
  /** Defaults to a {@link ScriptedPlanner} over the run's blueprint. */
  planner?: Planner;
  /** Wraps the planner (a harness injects model faults this way). */
  decoratePlanner?: (planner: Planner) => Planner;
  safeguards?: Partial<Safeguards>;
  probe?: ProbeHandler;
  signal?: AbortSignal;
  policyVersion?: string;
  /** Per-call timeout on the runtime's clock. Default 30 s. */
  callTimeoutMs?: number;
  backoff?: { baseMs: number; capMs: number };
}

export interface StartInput {
  runId: string;
  contract: unknown;
  /** Ignored with `planning: 'objective'`: then the planner writes the plan (a `plan` proposal). */
  blueprint?: unknown;
  /** `objective`: the run is given only its contract and the world's tools. Default `blueprint`. */
  planning?: Planning;
  input?: Record<string, unknown>;
}

/** How a run ended (or paused): terminal state or `blocked`, and why. */
export interface RunOutcome {
  runId: string;
  state: WorkflowState;
  stopReason: StopReason | null;
  detail: string | null;
}

/** A change before the runtime stamps it with the clock. */
type PendingChange = Omit<Change, 'at'> & { at?: number };

type StepResult = { ok: true } | { ok: false; failure: Failure; operationId: string };

const POLICY_VERSION = 'policy-gate@1';

/**
 * The reference runtime: the planner proposes, deterministic code disposes. Each write is
 * replay-safe — intent persisted with an idempotency key, policy checked against fresh state,
 * sent, an ambiguous result reconciled before anything else, the confirmed outcome persisted
 * with a checkpoint, postconditions verified, then the run advances. A new instance over the
 * same store resumes any run from its last checkpoint without redoing a confirmed action.
 *
 * @example
 * ```ts
 * const runtime = new ReferenceRuntime({ store, client, clock, credential });
 * const outcome = await runtime.start({ runId: 'r1', contract, blueprint, input: { order_id: 'ord_1' } });
 * ```
 */
export class ReferenceRuntime {
  private readonly store: RunStore;
  private readonly clock: Clock;
  private readonly executor: Executor;
  private readonly operator: Operator;
  private readonly safeguards: Safeguards;
  private readonly callTimeoutMs: number;
  private readonly backoff: { baseMs: number; capMs: number };
  /** What the last proposal cost, the estimate for the next (0 until a planner reports usage). */
  private lastProposalCostUsd = 0;
  private toolsHash: string | undefined;

  // The run in progress; authoritative copies live in the store, these mirror what was committed.
  private runId = '';
  private contract!: Contract;
  /** The plan in force: the run's blueprint, or the last plan its planner wrote. */
  private blueprint!: Blueprint;
  /** The blueprint the run was given, which its versions name (an objective-only run's is empty). */
  private versionedBlueprint!: Blueprint;
  /** The blueprint's operations by id (ids are unique: the blueprint schema checks). */
  private readonly operationsById = new Map<string, Operation>();
  /** Citations with `each` by tool: they hold for every write to the tool (see {@link citationsFor}). */
  private readonly toolCitations = new Map<string, CitationCheck[]>();
  private planner!: Planner;
  /** The planner when it is the runtime's own undecorated {@link ScriptedPlanner}. */
  private builtInPlanner: ScriptedPlanner | undefined;
  private run!: RunRecord;
  private readonly actions = new Map<string, ActionRecord>();
  private readonly approvals = new Map<string, ApprovalRecord>();
  private evidence: EvidenceRecord[] = [];
  /** The run's input and each operation's latest result, kept current as evidence is committed. */
  private results: Record<string, unknown> = {};
  /** What the planner sees of each operation, in blueprint order then content-proposed ones. */
  private views: OperationView[] = [];
  private readonly viewIndex = new Map<string, number>();
  private lastFailure: WorkingContext['lastFailure'];
  /** Reads (tool and canonical args) whose last attempt did not come back ok. */
  private readonly failedReads = new Set<string>();
  private resumePacket: ResumePacket | undefined;
  private sends = 0;
  private plannerVersions = { model: '', prompt: '' };

  constructor(private readonly options: RuntimeOptions) {
    this.store = options.store;
    this.clock = options.clock;
    this.executor = new Executor(options.client, options.clock);
    this.operator = options.operator ?? noOperator;
    this.safeguards = withSafeguards(options.safeguards);
    this.callTimeoutMs = options.callTimeoutMs ?? 30_000;
    this.backoff = options.backoff ?? { baseMs: 1_000, capMs: 60_000 };
  }

  /** Validates the contract and blueprint (writing nothing if either is bad), then runs. */
  async start(input: StartInput): Promise<RunOutcome> {
    const contract = parseContract(input.contract, `contract of run ${input.runId}`);
    const objectiveOnly = input.planning === 'objective';
    if (objectiveOnly && !this.options.planner) {
      throw new FaultlineError(
        'invalid-input',
        `Run ${input.runId}: planning 'objective' needs a planner that writes the plan (options.planner)`,
        { runId: input.runId },
      );
    }
    const blueprint = objectiveOnly
      ? emptyPlan()
      : parseBlueprint(input.blueprint, `blueprint of run ${input.runId}`);
    const toolsHash = await this.loadTools();
    this.checkBlueprintTools(blueprint, contract);
    if (this.store.hasRun(input.runId)) {
      throw new FaultlineError(
        'invalid-input',
        `Run ${input.runId} already exists in ${this.store.path}; resume it instead`,
        {
          runId: input.runId,
        },
      );
    }
    this.bind(input.runId, contract, blueprint);
    const now = this.clock.now();
    const run = this.store.createRun(
      {
        id: input.runId,
        mode: contract.autonomy,
        objective: contract.objective,
        contract,
        blueprint,
        versions: this.currentVersions(toolsHash),
        input: input.input ?? {},
        used: { toolCalls: 0, retries: 0, externalWrites: 0, costUsd: 0 },
        createdAt: now,
      },
      {
        type: 'run.created',
        reason: contract.objective,
        ...(this.clock.sequence ? { order: this.clock.sequence() } : {}),
      },
    );
    // A new run has no records yet: nothing to read back.
    this.load(run, [], [], []);
    const created = objectiveOnly
      ? 'objective only: the planner writes the plan'
      : 'initial plan from blueprint';
    this.commit({
      to: 'planned',
      event: { type: 'plan.created', reason: created },
      plan: {
        reason: created,
        operations: blueprint.operations.map((o) => o.id),
      },
      checkpoint: {
        boundary: 'validated-input',
        data: { contractHash: this.run.versions.contractHash },
      },
    });
    this.commit({
      to: 'ready',
      event: { type: 'plan.approved', reason: `autonomy ${contract.autonomy}` },
      checkpoint: { boundary: 'approved-plan', data: { planVersion: this.run.planVersion } },
    });
    return this.loop();
  }

  /**
   * Continues a run from its durable records. Pass a new contract or blueprint to change
   * them: any changed version (contract, blueprint, model, prompt, policy, tool schemas)
   * makes the run replan, recorded with the reason.
   */
  async resume(
    runId: string,
    changes: { contract?: unknown; blueprint?: unknown } = {},
  ): Promise<RunOutcome> {
    const stored = this.store.getRun(runId);
    if (!stored)
      throw new FaultlineError('not-found', `No run ${runId} in ${this.store.path}`, { runId });
    const contract = parseContract(changes.contract ?? stored.contract, `contract of run ${runId}`);
    const given = changes.blueprint ?? stored.blueprint;
    const blueprint = isObjectiveOnly(given)
      ? emptyPlan()
      : parseBlueprint(given, `blueprint of run ${runId}`);
    const toolsHash = await this.loadTools();
    this.bind(runId, contract, blueprint);
    // An objective-only run goes on with the last plan its planner wrote, as stored.
    if (isObjectiveOnly(given)) this.bindOperations(latestWrittenPlan(this.store.plans(runId)));
    this.reload();
    if (isTerminal(this.run.state)) return this.outcome();

    const fromScratch = !this.safeguards.checkpoint;
    if (fromScratch) {
      // Without checkpoints there is nothing to resume from: start the plan over.
      this.actions.clear();
      this.approvals.clear();
      this.evidence = [];
      this.rebuildResults();
    }
    this.resumePacket = this.buildResumePacket();
    const changed = diffVersions(this.run.versions, this.currentVersions(toolsHash));
    this.commit({
      event: {
        type: 'run.resumed',
        reason: fromScratch ? 'no checkpoint: starting over' : 'resumed from last checkpoint',
        data: {
          confirmed: this.resumePacket.confirmedActions.map((a) => a.operationId),
          openQuestions: this.resumePacket.openQuestions,
        },
      },
    });
    const waited = await this.leaveInterruptedWait();
    if (changed.length > 0 || this.run.state === 'blocked') {
      const reason =
        changed.length > 0
          ? `versions changed on resume: ${changed.join(', ')}`
          : 'resumed after being blocked';
      this.commit({
        to: 'planned',
        event: { type: 'plan.replanned', reason },
        plan: { reason, operations: this.blueprint.operations.map((o) => o.id) },
      });
    }
    if (this.run.state !== 'ready') {
      this.commit({ to: 'ready', event: { type: 'run.ready', reason: 'resumed' } });
    }
    const reconciled = await this.reconcileOpenActions(!waited);
    if (!reconciled.ok) this.handleFailure(reconciled.failure, reconciled.operationId, true);
    return this.loop();
  }

  /** The run's durable records, for white-box grading and debugging. */
  records(runId: string = this.runId): {
    run: RunRecord | undefined;
    events: ReturnType<RunStore['events']>;
    actions: ActionRecord[];
  } {
    return {
      run: this.store.getRun(runId),
      events: this.store.events(runId),
      actions: this.store.actions(runId),
    };
  }

  // ── the loop ──────────────────────────────────────────────────────────────

  private async loop(): Promise<RunOutcome> {
    let invalidOutputs = 0;
    // Consecutive planner calls that failed for a reason other than their output (the backoff's attempt).
    let failedCalls = 0;
    for (;;) {
      if (isTerminal(this.run.state) || this.run.state === 'blocked') return this.outcome();
      // Nothing to await on the common path: no command and no abort.
      const command = this.pollOperator();
      if (command) {
        await this.actOnOperator(command);
        continue;
      }
      const elapsed = this.clock.now() - this.run.createdAt;
      if (this.safeguards.budgets && elapsed >= this.contract.budgets.virtualTimeMs) {
        this.stop(
          'failed',
          'budget-exhausted',
          `virtual time budget of ${this.contract.budgets.virtualTimeMs} ms used up`,
        );
        continue;
      }

      // A proposal is paid for before it can be judged: stop before one the cost budget cannot
      // cover, taking the last proposal's cost as the estimate (a run's context only grows).
      const { costUsd } = this.contract.budgets;
      if (
        this.safeguards.budgets &&
        costUsd > 0 &&
        this.run.used.costUsd + this.lastProposalCostUsd > costUsd
      ) {
        this.stop(
          'failed',
          'budget-exhausted',
          `the next proposal would take the model cost past the $${costUsd} budget ($${this.run.used.costUsd.toFixed(4)} spent, the last proposal cost $${this.lastProposalCostUsd.toFixed(4)})`,
        );
        continue;
      }

      const context = this.workingContext();
      this.resumePacket = undefined;
      let raw: unknown;
      let proposal: Proposal | undefined;
      try {
        if (this.builtInPlanner) {
          // Typed proposals from the runtime's own planner: parsing them would check this code
          // against itself. Whatever any other planner answers is validated below.
          proposal = this.builtInPlanner.next(context);
        } else {
          const answer = await this.planner.propose(context);
          failedCalls = 0;
          raw = answer.proposal;
          const usage = answer.usage;
          if (usage && (usage.costUsd > 0 || usage.inputTokens + usage.outputTokens > 0)) {
            this.commit({
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
        const decision = decide(this.supervisorInput(failure, invalidOutputs, 'planner', false));
        if (decision.kind === 'regenerate') {
          this.commit({
            event: {
              type: 'planner.invalid-output',
              reason: decision.reason,
              resultClass: 'invalid_output',
            },
            used: { retries: 1 },
          });
          continue;
        }
        this.handleFailure(failure, 'planner', false);
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
    const decision = decide(this.supervisorInput(failure, attempt, 'planner', false));
    if (decision.kind !== 'retry' && decision.kind !== 'wait') {
      this.handleFailure(failure, 'planner', false);
      return;
    }
    // `waiting`, not `retrying`: no action is in flight, the run waits before asking again.
    const moves = isLegalTransition(this.run.state, 'waiting');
    this.commit({
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
    if (decision.delayMs > 0) await this.clock.sleep(decision.delayMs);
    this.commit({
      ...(moves ? { to: 'ready' as const } : {}),
      event: { type: 'run.ready', reason: `asking the planner again after ${decision.delayMs} ms` },
    });
  }

  /** A model or prompt changed under the run: record it and replan, never carry on silently. */
  private noticePlannerSwap(): boolean {
    const now = this.planner.versions;
    const before = this.plannerVersions;
    if (now.model === before.model && now.prompt === before.prompt) return false;
    const reason = `planner changed mid-run: model ${before.model} → ${now.model}, prompt ${before.prompt} → ${now.prompt}`;
    this.plannerVersions = { ...now };
    this.commit({
      to: 'planned',
      event: { type: 'plan.replanned', reason },
      plan: { reason, operations: this.blueprint.operations.map((o) => o.id) },
    });
    this.commit({ to: 'ready', event: { type: 'run.ready', reason: 'replanned' } });
    return true;
  }

  /**
   * Why a well-formed proposal is still refused as `invalid_output`, or undefined: a plan is
   * written only in an objective-only run, and never drops, renames or changes an operation in
   * flight or done (see {@link checkWrittenPlan}).
   */
  private refusal(proposal: Proposal): string | undefined {
    if (proposal.kind !== 'plan') return undefined;
    if (!isObjectiveOnly(this.versionedBlueprint))
      return `kind: this run follows blueprint ${this.versionedBlueprint.id}; a plan is written only in an objective-only run`;
    const issues = checkWrittenPlan(proposal, {
      current: this.blueprint,
      actions: this.actions,
      contract: this.contract,
      hasTool: (name) => this.executor.hasTool(name),
    });
    return issues.length > 0 ? `plan refused: ${issues.join('; ')}` : undefined;
  }

  /** Stores a plan the planner wrote as the next plan version, then runs it. */
  private adoptPlan(proposal: Extract<Proposal, { kind: 'plan' }>): void {
    const written = { operations: proposal.operations, completion: proposal.completion };
    this.lastFailure = undefined;
    this.commit({
      to: 'planned',
      event: { type: 'plan.written', reason: proposal.reason },
      plan: { reason: proposal.reason, operations: written.operations.map((o) => o.id), written },
    });
    this.bindOperations(writtenBlueprint(written, this.run.planVersion));
    this.rebuildResults();
    this.commit({
      to: 'ready',
      event: { type: 'plan.approved', reason: `plan version ${this.run.planVersion} written` },
      checkpoint: { boundary: 'approved-plan', data: { planVersion: this.run.planVersion } },
    });
  }

  private async handleProposal(proposal: Proposal): Promise<void> {
    switch (proposal.kind) {
      case 'plan':
        this.adoptPlan(proposal);
        return;
      case 'finish':
        await this.finish(proposal.summary);
        return;
      case 'escalate':
        this.stop('blocked', 'tool-error', proposal.reason);
        return;
      case 'skip': {
        const op = this.operation(proposal.operationId);
        this.commit({
          ...this.toExecuting(),
          event: {
            type: 'action.skipped',
            operationId: proposal.operationId,
            reason: proposal.reason,
          },
          action: this.actionRecord(
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
        this.lastFailure = undefined;
        this.commit({
          to: 'planned',
          event: {
            type: 'plan.replanned',
            reason: proposal.reason,
            data: { refresh: proposal.refresh },
          },
          plan: { reason: proposal.reason, operations: this.blueprint.operations.map((o) => o.id) },
        });
        this.commit({ to: 'ready', event: { type: 'run.ready', reason: 'replanned' } });
        for (const id of proposal.refresh) {
          const op = this.operation(id);
          if (!op || op.kind !== 'read') continue;
          const result = await this.step(op, this.resolveArgs(op), 'blueprint');
          if (!result.ok) {
            this.handleFailure(result.failure, result.operationId, false);
            return;
          }
        }
        return;
      }
      case 'act': {
        const op = this.operation(proposal.operationId);
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
          this.handleFailure(result.failure, result.operationId, target.kind === 'write');
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
    if (op.kind === 'read') return this.read(op, args, origin);
    return this.write(op, args, origin);
  }

  private async read(
    op: Operation,
    args: Record<string, unknown>,
    origin: ActionOrigin,
  ): Promise<StepResult> {
    const gate = this.gate(op, args, origin);
    if (gate.verdict === 'deny') return this.denied(op, args, origin, gate);
    let attempt = 0;
    for (;;) {
      attempt++;
      if (attempt === 1) {
        const over = this.chargeRepeat(op.id, op.tool, args);
        if (over) return { ok: false, failure: over, operationId: op.id };
      } else if (this.outOfCalls()) {
        // The gate let the first attempt through; a retry must fit the budget too.
        const message = `${this.run.used.toolCalls} of ${this.contract.budgets.toolCalls} tool calls used before ${op.tool} could be retried`;
        return { ok: false, failure: { class: 'budget_exhausted', message }, operationId: op.id };
      }
      const requestId = `${this.runId}:${op.id}:r${this.run.used.toolCalls + 1}`;
      const outcome = await this.executor.call({
        tool: op.tool,
        args,
        meta: this.meta(op.id),
        timeoutMs: this.callTimeoutMs,
        ...this.signalOption(),
      });
      this.noteRead(op.tool, args, outcome.kind === 'ok');
      if (outcome.kind === 'ok') {
        const evidence = this.evidenceRecord(
          op.id,
          op.tool,
          requestId,
          outcome.result,
          outcome.trust,
        );
        this.commit({
          ...this.toExecuting(),
          event: {
            type: 'action.read',
            operationId: op.id,
            requestId,
            resultClass: 'ok',
            policyRule: gate.rule,
            evidenceRefs: [evidence.id],
          },
          action: {
            ...this.actionRecord(op.id, op.tool, 'read', args, 'confirmed', origin),
            attempts: attempt,
            result: outcome.result,
          },
          evidence: [evidence],
          used: { toolCalls: 1 },
        });
        return { ok: true };
      }
      const failure = toFailure(outcome, false);
      this.commit({
        ...this.toExecuting(),
        event: {
          type: 'action.read-failed',
          operationId: op.id,
          requestId,
          resultClass: failure.class,
          reason: failure.message,
        },
        used: { toolCalls: 1 },
      });
      const retried = await this.retryIfWorthIt(failure, attempt, op.id, false);
      if (!retried) return { ok: false, failure, operationId: op.id };
    }
  }

  private async write(
    op: Operation,
    args: Record<string, unknown>,
    origin: ActionOrigin,
  ): Promise<StepResult> {
    const existing = this.actions.get(op.id);
    if (existing && DONE_STATUSES.has(existing.status) && this.safeguards.checkpoint)
      return { ok: true };
    if (this.options.probe) await this.probe('before-intent', op, 0);

    // Policy gate, with approvals obtained as the gate asks for them.
    let gate = this.gate(op, args, origin);
    if (gate.verdict === 'needs-approval') {
      const approval = await this.obtainApproval(op, args, origin);
      if (approval.status !== 'granted') {
        return {
          ok: false,
          failure: { class: 'approval_denied', message: approval.reason ?? 'approval denied' },
          operationId: op.id,
        };
      }
      // Waiting for a person is a step boundary: a cancel or pause given meanwhile counts now.
      if ((await this.handleOperator()) && isTerminal(this.run.state)) return { ok: true };
      gate = this.gate(op, args, origin);
    }
    if (gate.verdict === 'deny') return this.denied(op, args, origin, gate);
    if (gate.verdict === 'needs-approval') {
      return {
        ok: false,
        failure: { class: 'policy_denied', message: gate.reason },
        operationId: op.id,
      };
    }
    if (gate.verdict === 'shadow') {
      this.commit({
        ...this.toExecuting(),
        event: {
          type: 'action.proposed',
          operationId: op.id,
          policyRule: gate.rule,
          reason: gate.reason,
        },
        action: this.actionRecord(op.id, op.tool, 'write', args, 'proposed', origin),
      });
      return { ok: true };
    }

    // Preconditions against freshly read state (or, without the safeguard, what the planner saw).
    if (op.preconditions.length > 0) {
      const pre = await this.checkFresh(op, op.preconditions, args, 'precondition');
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
    if (this.cites(op, args) || this.checksInPlace(op)) {
      const checked = await this.checkBeforeSend(
        op,
        this.actionRecord(op.id, op.tool, 'write', args, 'skipped', origin),
      );
      if (checked) return checked;
    }

    const key = this.keyFor(op.id);
    const action = this.actionRecord(op.id, op.tool, 'write', args, 'intended', origin);
    action.idempotencyKey = key;
    action.approvalId = this.approvals.get(action.id)?.id ?? null;
    this.commit({
      ...this.toExecuting(),
      event: {
        type: 'action.intended',
        operationId: op.id,
        actionId: action.id,
        idempotencyKey: key,
        policyRule: gate.rule,
      },
      action,
    });
    if (this.options.probe) await this.probe('after-intent', op, 0);
    return this.send(op, 1, false);
  }

  /**
   * Sends the intended write and follows it to a known outcome: confirmed, reconciled, or a
   * failure for the supervisor. `reconciling` marks a resend whose purpose is to learn the
   * outcome of an earlier, ambiguous send.
   */
  private async send(
    op: Operation,
    firstAttempt: number,
    reconciling: boolean,
  ): Promise<StepResult> {
    let attempt = firstAttempt;
    let asReconcile = reconciling;
    for (; ; attempt++) {
      const action = this.mustAction(op.id);
      // A fresh write was gated with its intent; every other send must fit the budgets too.
      if (this.safeguards.budgets && (attempt > firstAttempt || firstAttempt > 1)) {
        const gate = this.gate(op, action.args, action.origin, true);
        if (gate.verdict === 'deny') return this.denied(op, action.args, action.origin, gate);
      }
      const key = this.safeguards.idempotency ? action.idempotencyKey : this.keyFor(op.id);
      if (this.options.probe) await this.probe('before-send', op, attempt);
      const requestId = `${this.runId}:${op.id}:w${attempt}`;
      const approval = action.approvalId ? this.approvals.get(action.id) : undefined;
      const meta = this.meta(op.id);
      if (key) meta[META.idempotencyKey] = key;
      if (approval?.token) meta[APPROVAL_TOKEN_META] = approval.token;
      const request: CallRequest = {
        tool: op.tool,
        args: action.args,
        meta,
        timeoutMs: this.callTimeoutMs,
      };
      if (this.options.signal) request.signal = this.options.signal;
      const received = await this.executor.call(request);
      // A garbled reply to a write says nothing about whether the write happened: ambiguous.
      const outcome: CallOutcome =
        received.kind === 'error' && received.class === 'malformed_reply'
          ? { kind: 'no-reply', reason: 'timeout', message: received.message }
          : received;
      const sent = { toolCalls: 1, externalWrites: 1 };

      if (outcome.kind === 'ok') {
        if (this.options.probe) await this.probe('before-result-saved', op, attempt);
        const status = asReconcile ? 'reconciled' : 'confirmed';
        this.confirm(
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
        if (this.options.probe) await this.probe('after-result-saved', op, attempt);
        if (this.mustVerify(op)) {
          const verified = await this.verifyPostconditions(op);
          if (!verified.ok) {
            // The write is confirmed but its effect cannot be seen: never carry on as if it were.
            this.stop('failed', 'verification-failed', verified.failures.join('; '));
            return { ok: true };
          }
        }
        if (this.options.probe) await this.probe('before-advance', op, attempt);
        return { ok: true };
      }

      if (outcome.kind === 'no-reply') {
        this.commit({
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
            updatedAt: this.clock.now(),
          },
          used: sent,
        });
        if (!this.safeguards.reconcile) {
          // Without reconciliation: send again and hope.
          const spent = this.countResend(op, 'no reply: resending blindly');
          if (spent) return spent;
          continue;
        }
        const next = await this.reconcile(op);
        if (next === 'done') return { ok: true };
        if (next === 'resend' || next === 'absent') {
          const checked = next === 'absent' ? await this.checkAbsent(op) : undefined;
          if (checked) return checked;
          asReconcile = op.idempotent;
          const spent = this.countResend(op, 'reconciled: resending with the same key');
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
      this.commit({
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
          updatedAt: this.clock.now(),
        },
        used: sent,
      });
      const retried = await this.retryIfWorthIt(failure, attempt, op.id, true);
      if (!retried) return { ok: false, failure, operationId: op.id };
      // The write did not happen, and the world went on while the run waited: a cited source
      // may have changed, or a colleague made the effect, meanwhile.
      if (this.cites(op, action.args) || this.checksInPlace(op)) {
        const checked = await this.checkBeforeSend(op, this.mustAction(op.id));
        if (checked) return checked;
      }
    }
  }

  /**
   * Before a write found absent is sent again: its citations, checked again (the world went on
   * while its outcome was unknown). A result says to skip the write or to stop; undefined, to
   * send.
   */
  private async checkAbsent(op: Operation): Promise<StepResult | undefined> {
    const action = this.mustAction(op.id);
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
  private async checkBeforeSend(
    op: Operation,
    action: ActionRecord,
  ): Promise<StepResult | undefined> {
    for (;;) {
      const retries = this.run.used.retries;
      // A write never cites a source that no longer says what it is cited for. A failed check
      // is not an error to retry or replan: the write is skipped, with the reason, so the
      // blueprint's fallback (an operation whose `when` sees this one absent) runs.
      const uncited = this.cites(op, action.args) && (await this.citationsFail(op, action));
      if (uncited) return uncited;
      // Someone else may have made the effect already: then sending would make it twice.
      const inPlace = this.checksInPlace(op) && (await this.alreadyInPlace(op, action));
      if (inPlace) return inPlace;
      if (!this.cites(op, action.args) || this.run.used.retries === retries) return undefined;
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
    this.commit({
      ...this.toExecuting(),
      event: {
        type: 'action.skipped',
        operationId: op.id,
        policyRule: 'source-check',
        reason: `citation check failed: ${cited.failures.join('; ')}`,
        data: { citations: cited.failures },
      },
      action: { ...action, status: 'skipped', updatedAt: this.clock.now() },
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
    this.commit({
      ...this.toExecuting(),
      event: {
        type: 'action.skipped',
        operationId: op.id,
        reason: `already in place: ${op.alreadyDone.description}`,
      },
      action: {
        ...action,
        status: 'skipped',
        result: { alreadyDone: op.alreadyDone.description },
        updatedAt: this.clock.now(),
      },
    });
    return { ok: true };
  }

  /**
   * Learns what an ambiguous write did before anything else happens: where the provider
   * honours keys, a resend with the same key is the question; otherwise its reconcile query.
   * Neither possible: the run waits for a person.
   */
  private async reconcile(
    op: Operation,
  ): Promise<'done' | 'resend' | 'absent' | { unresolved: string }> {
    const action = this.mustAction(op.id);
    // A write that cites sources asks its query when it has one: a resend under the same key
    // would file citations checked before the wait, and a source may have changed since.
    if (
      op.idempotent &&
      this.safeguards.idempotency &&
      !(this.cites(op, action.args) && op.reconcile)
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
        resolveValue(v, this.scope(action)),
      ]),
    );
    const read = await this.freshRead(op.reconcile.read.tool, args, `${op.id}:reconcile`);
    if (!read.ok)
      return { unresolved: `reconcile query ${op.reconcile.read.tool} failed: ${read.message}` };
    const found = evaluate(
      op.reconcile.found,
      extendScope(this.scope(action), { fresh: read.result }),
    );
    if (!found) {
      this.commit({
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
    const verified = await this.verifyPostconditions(op);
    if (!verified.ok) this.stop('failed', 'verification-failed', verified.failures.join('; '));
    return 'done';
  }

  /**
   * On resume: every write whose outcome is unknown is reconciled before the planner runs.
   * `inFlight`: a send may have been cut off by the crash (not when the run was waiting out a
   * failure: every send before the wait had its outcome saved, and counted).
   */
  private async reconcileOpenActions(inFlight: boolean): Promise<StepResult> {
    for (const action of [...this.actions.values()]) {
      if (!mayHaveBeenSent(action)) continue;
      const op = this.operation(action.operationId);
      if (!op) continue;
      this.commit({
        ...this.toExecuting(),
        event: {
          type: 'action.ambiguous',
          operationId: op.id,
          actionId: action.id,
          resultClass: 'ambiguous',
          reason: `found ${action.status} on resume`,
        },
        action: { ...action, status: 'ambiguous', updatedAt: this.clock.now() },
        // A send is counted when its outcome is saved: one cut off by the crash may have gone
        // out uncounted. Budgets count it as used, so what left on the wire never exceeds them.
        ...(action.status === 'intended' && inFlight
          ? { used: { toolCalls: 1, externalWrites: 1 } }
          : {}),
      });
      if (!this.safeguards.reconcile) {
        const spent = this.countResend(op, 'found on resume: resending blindly');
        if (spent) return spent;
        const result = await this.send(op, action.attempts + 1, false);
        if (!result.ok) return result;
        continue;
      }
      const next = await this.reconcile(op);
      if (next === 'done') continue;
      if (next === 'resend' || next === 'absent') {
        const checked = next === 'absent' ? await this.checkAbsent(op) : undefined;
        if (checked && !checked.ok) return checked;
        if (checked) continue;
        const spent = this.countResend(op, 'reconciled on resume: resending with the same key');
        if (spent) return spent;
        const result = await this.send(op, action.attempts + 1, op.idempotent);
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
  private countResend(op: Operation, reason: string): StepResult | undefined {
    const budget = this.contract.budgets.retries;
    if (this.safeguards.budgets && this.run.used.retries >= budget) {
      return {
        ok: false,
        failure: {
          class: 'budget_exhausted',
          message: `retry budget of ${budget} used up before ${op.tool} could be resent`,
        },
        operationId: op.id,
      };
    }
    this.commit({
      event: { type: 'supervisor.retry', operationId: op.id, reason },
      used: { retries: 1 },
    });
    return undefined;
  }

  private confirm(
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
    const evidence = this.evidenceRecord(op.id, op.tool, requestId, result, trust);
    const approval = action.approvalId ? this.approvals.get(action.id) : undefined;
    const change: PendingChange = {
      ...this.toExecuting(),
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
        updatedAt: this.clock.now(),
      },
      evidence: [evidence],
      used,
    };
    if (approval)
      change.approval = { ...approval, status: 'consumed', consumedAt: this.clock.now() };
    if (this.safeguards.checkpoint)
      change.checkpoint = { boundary: 'confirmed-action', data: { operationId: op.id, status } };
    this.commit(change);
  }

  // ── approvals, preconditions, verification ────────────────────────────────

  private async obtainApproval(
    op: Operation,
    args: Record<string, unknown>,
    origin: ActionOrigin,
  ): Promise<ApprovalRecord> {
    const actionId = this.actionId(op.id);
    const existing = this.approvals.get(actionId);
    if (existing && existing.status !== 'requested') return existing;
    const requestedAt = this.clock.now();
    const evidenceRefs = this.evidence.map((e) => e.id);
    const requested: ApprovalRecord = {
      id: `${actionId}:approval`,
      runId: this.runId,
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
    const moves = this.run.state !== 'cancelled';
    this.commit({
      ...(moves ? { to: 'waiting' as const } : {}),
      event: {
        type: 'approval.requested',
        operationId: op.id,
        actionId,
        evidenceRefs,
        reason: `${op.tool} needs an approval`,
      },
      approval: requested,
      action: this.actionRecord(op.id, op.tool, 'write', args, 'intended', origin),
    });
    if (this.options.probe) await this.probe('awaiting-approval', op, 0);
    const decision = await this.operator.requestApproval({
      approvalId: requested.id,
      runId: this.runId,
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
            decidedAt: this.clock.now(),
            token: decision.token,
          }
        : {
            ...requested,
            status: 'denied',
            approver: decision.approver,
            reason: decision.reason,
            decidedAt: this.clock.now(),
          };
    this.commit({
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

  /**
   * Runs a write's checks (its preconditions or its citations) against freshly read state, or,
   * without the `fresh-read` safeguard, against what the planner already saw.
   */
  private async checkFresh(
    op: Operation,
    checks: Operation['preconditions'],
    args: Record<string, unknown>,
    purpose: 'already-done' | 'precondition' | 'citation',
  ): Promise<Verdict> {
    if (checks.length === 0) return { ok: true, failures: [] };
    const scope = extendScope(this.results, { args });
    const read: FreshRead = this.safeguards['fresh-read']
      ? (tool, a) => this.freshRead(tool, a, `${op.id}:${purpose}`)
      : (tool, a) => {
          // What the planner already saw, if it read the same thing.
          const seen = [...this.evidence]
            .reverse()
            .find(
              (e) => e.tool === tool && sameArgs(this.actions.get(e.operationId ?? '')?.args, a),
            );
          return seen
            ? Promise.resolve({ ok: true, result: seen.content })
            : this.freshRead(tool, a, `${op.id}:${purpose}`);
        };
    return verifyChecks(checks, scope, read);
  }

  /** Whether `op` has postconditions to verify (the hot path skips an await when not). */
  private mustVerify(op: Operation): boolean {
    return this.safeguards['verify-before-finish'] && op.postconditions.length > 0;
  }

  private async verifyPostconditions(op: Operation): Promise<{ ok: boolean; failures: string[] }> {
    if (!this.mustVerify(op)) return { ok: true, failures: [] };
    const verdict = await verifyChecks(
      op.postconditions,
      this.scope(this.actions.get(op.id)),
      (tool, a) => this.freshRead(tool, a, `${op.id}:postcondition`),
    );
    this.commit({
      event: {
        type: verdict.ok ? 'verify.postconditions-held' : 'verify.postconditions-failed',
        operationId: op.id,
        reason: verdict.failures.join('; ') || 'all postconditions hold',
      },
    });
    return verdict;
  }

  private async finish(summary: string): Promise<void> {
    if (this.safeguards['verify-before-finish']) {
      const gathered = new Set(this.evidence.map((e) => e.operationId ?? ''));
      // Completion checks describe the world after the writes; in shadow and recommend modes
      // the writes are only proposed, so only the evidence and invariants are checked.
      const proposeOnly =
        this.contract.autonomy === 'shadow' || this.contract.autonomy === 'recommend';
      const verdict = await verifyCompletion(
        this.contract,
        proposeOnly ? [] : this.blueprint.completion,
        this.scope(),
        gathered,
        (tool, a) => this.freshRead(tool, a, 'completion'),
      );
      if (!verdict.ok) {
        this.stop('failed', 'verification-failed', verdict.failures.join('; '));
        return;
      }
    }
    const proposed = [...this.actions.values()].filter((a) => a.status === 'proposed');
    const skipped = [...this.actions.values()]
      .filter((a) => a.status === 'skipped')
      .map((a) => a.operationId);
    // A write skipped because its effect was already in place was not declined.
    const inPlace = new Set(
      [...this.actions.values()].filter((a) => isAlreadyDone(a.result)).map((a) => a.operationId),
    );
    const type =
      this.contract.autonomy === 'recommend'
        ? 'run.recommendation'
        : this.contract.autonomy === 'shadow'
          ? 'run.shadowed'
          : 'run.completed';
    const change: PendingChange = {
      to: 'completed',
      event: {
        type,
        reason: summary,
        // The claim of success cites the evidence it rests on.
        evidenceRefs: this.evidence.map((e) => e.id),
        data: {
          proposed: proposed.map((a) => ({
            operationId: a.operationId,
            tool: a.tool,
            args: a.args,
          })),
          skipped,
          verified: this.safeguards['verify-before-finish'],
        },
      },
    };
    // An investigation whose findings ruled out a write it could have made ends with its
    // answer on record: it decided not to act (the answer "do not" is a result, not a failure).
    const declined = skipped.filter(
      (id) =>
        !inPlace.has(id) && this.blueprint.operations.find((o) => o.id === id)?.kind === 'write',
    );
    if (this.contract.decisionBoundary === 'investigate' && declined.length > 0)
      change.stop = {
        reason: 'decided-not-to-act',
        detail: `the findings ruled out ${declined.join(', ')}`,
      };
    if (this.safeguards.checkpoint)
      change.checkpoint = { boundary: 'verified-outcome', data: { summary } };
    this.commit(change);
  }

  /** A read made to check something (precondition, postcondition, reconciliation, completion). */
  private async freshRead(
    tool: string,
    args: Record<string, unknown>,
    purpose: string,
  ): Promise<{ ok: true; result: unknown } | { ok: false; message: string; class: FailureClass }> {
    let requestId: string;
    let outcome: CallOutcome;
    for (let attempt = 1; ; attempt++) {
      // Every attempt, a retry too, must fit the tool-call budget.
      if (this.outOfCalls())
        return { ok: false, message: 'tool-call budget used up', class: 'budget_exhausted' };
      if (attempt === 1) {
        const over = this.chargeRepeat(purpose, tool, args);
        if (over) return { ok: false, message: over.message, class: over.class };
      }
      requestId = `${this.runId}:${purpose}:r${this.run.used.toolCalls + 1}`;
      outcome = await this.executor.call({
        tool,
        args,
        meta: this.meta(purpose),
        timeoutMs: this.callTimeoutMs,
        ...this.signalOption(),
      });
      this.noteRead(tool, args, outcome.kind === 'ok');
      if (outcome.kind === 'ok') break;
      const failure = toFailure(outcome, false);
      this.commit({
        ...this.toExecuting(),
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
      if (!(await this.retryIfWorthIt(failure, attempt, purpose, false))) {
        return { ok: false, message: outcome.message, class: failure.class };
      }
    }
    const evidence = this.evidenceRecord(purpose, tool, requestId, outcome.result, outcome.trust);
    this.commit({
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

  /** Whether the tool-call budget (when budgets are kept) has no call left. */
  private outOfCalls(): boolean {
    return this.safeguards.budgets && this.run.used.toolCalls >= this.contract.budgets.toolCalls;
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
    if (this.safeguards.budgets && this.run.used.retries >= this.contract.budgets.retries)
      return {
        class: 'budget_exhausted',
        message: `retry budget used up: ${tool} failed last time and calling it again is a retry`,
      };
    this.commit({
      event: {
        type: 'supervisor.retry',
        operationId,
        reason: `${tool} with these arguments failed last time: calling it again is a retry`,
      },
      used: { retries: 1 },
    });
    return undefined;
  }

  // ── failures, operator, stopping ──────────────────────────────────────────

  /** Waits out a retryable failure (backoff or retry-after) and says whether to try again. */
  private async retryIfWorthIt(
    failure: Failure,
    attempt: number,
    operationId: string,
    sideEffect: boolean,
  ): Promise<boolean> {
    const decision = decide(this.supervisorInput(failure, attempt, operationId, sideEffect));
    if (decision.kind !== 'retry' && decision.kind !== 'wait') return false;
    const state: WorkflowState = decision.kind === 'retry' ? 'retrying' : 'waiting';
    this.commit({
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
    if (this.options.probe) {
      const probe = decision.kind === 'retry' ? 'awaiting-backoff' : 'awaiting-retry-after';
      await this.probeWait(probe, operationId, attempt);
    }
    if (decision.delayMs > 0) await this.clock.sleep(decision.delayMs);
    this.commit({
      to: 'executing',
      event: {
        type: 'supervisor.resumed',
        operationId,
        reason: `retrying after ${decision.delayMs} ms`,
      },
    });
    return true;
  }

  private handleFailure(failure: Failure, operationId: string, sideEffect: boolean): void {
    const decision = decide(this.supervisorInput(failure, 1, operationId, sideEffect));
    switch (decision.kind) {
      case 'replan':
        this.lastFailure = { operationId, class: failure.class, message: failure.message };
        this.commit({
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
    const action = this.actions.get(operationId);
    if (!action || action.status !== 'intended' || failure.class === 'ambiguous') return;
    this.commit({
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
        updatedAt: this.clock.now(),
      },
    });
  }

  private denied(
    op: Operation,
    args: Record<string, unknown>,
    origin: ActionOrigin,
    gate: { rule: string; reason: string; class: 'policy_denied' | 'budget_exhausted' },
  ): StepResult {
    this.commit({
      ...this.toExecuting(),
      event: {
        type: 'policy.denied',
        operationId: op.id,
        policyRule: gate.rule,
        reason: gate.reason,
        resultClass: gate.class,
      },
      action: {
        ...this.actionRecord(op.id, op.tool, op.kind, args, 'failed', origin),
        errorClass: gate.class,
      },
    });
    // Refusing an instruction found in content is the gate working, not a reason to stop.
    if (origin === 'content' && gate.class === 'policy_denied') return { ok: true };
    return { ok: false, failure: { class: gate.class, message: gate.reason }, operationId: op.id };
  }

  /** Polls the operator (and the abort signal) at a step boundary; true when something happened. */
  private async handleOperator(): Promise<boolean> {
    const found = this.pollOperator();
    if (!found) return false;
    await this.actOnOperator(found);
    return true;
  }

  /** What the abort signal or the operator asks for now, if anything; synchronous and cheap. */
  private pollOperator(): OperatorCommand | 'abort' | undefined {
    return this.options.signal?.aborted ? 'abort' : this.operator.poll();
  }

  private async actOnOperator(command: OperatorCommand | 'abort'): Promise<void> {
    if (command === 'abort') {
      await this.cancel('aborted by the harness', 'abort');
      return;
    }
    if (command.kind === 'cancel') {
      await this.cancel(command.reason, 'cancel');
      return;
    }
    if (command.kind === 'pause') {
      this.commit({
        to: 'waiting',
        event: { type: 'run.paused', operatorAction: 'pause', reason: 'paused by operator' },
      });
      const next = await this.operator.nextCommand();
      if (next.kind === 'cancel') {
        await this.cancel(next.reason, 'cancel');
        return;
      }
      this.commit({
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
    const compensable = [...this.actions.values()].filter(
      (a) =>
        a.kind === 'write' &&
        (a.status === 'confirmed' || a.status === 'reconciled') &&
        this.operation(a.operationId)?.compensate,
    );
    const compensate = compensable.length > 0 && this.contract.recoveryPromise.compensateOnCancel;
    this.commit({
      to: 'cancelled',
      event: {
        type: 'run.cancelled',
        operatorAction,
        reason,
        // What the run had gathered when it was stopped, as a failed or escalated run cites it.
        evidenceRefs: this.evidence.map((e) => e.id),
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
        this.commit({
          to: 'compensated',
          event: { type: 'run.compensated', reason: `compensated ${compensable.length} action(s)` },
          compensationOwed: false,
        });
      } else {
        // The run stays cancelled with the compensation owed: a person takes it from here.
        const detail = `${reason}; compensation owed for ${owed.join(', ')}, left to a person`;
        this.commit({
          event: {
            type: 'run.compensation-owed',
            reason: detail,
            data: { compensationOwed: owed },
          },
          stop: { reason: 'cancelled', detail },
        });
      }
    }
    await this.options.credential.revoke?.();
  }

  private async compensateOne(original: ActionRecord): Promise<boolean> {
    const op = this.operation(original.operationId);
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
    const args = this.resolveArgs(undo);
    const key = idempotencyKey(this.runId, undo.id);
    const record: ActionRecord = {
      ...this.actionRecord(undo.id, undo.tool, 'write', args, 'intended', 'compensation'),
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
    if (this.safeguards.approvals && approvalRequired(this.contract, gated)) {
      approval = await this.obtainApproval(undo, args, 'compensation');
      if (approval.status !== 'granted') {
        this.commit({
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
    this.commit({
      event: {
        type: 'action.intended',
        operationId: undo.id,
        actionId: record.id,
        idempotencyKey: key,
        reason: `compensates ${original.id}`,
      },
      action: record,
    });
    const meta: Record<string, string> = { ...this.meta(undo.id), [META.idempotencyKey]: key };
    if (approval?.token) meta[APPROVAL_TOKEN_META] = approval.token;
    const outcome = await this.executor.call({
      tool: undo.tool,
      args,
      meta,
      timeoutMs: this.callTimeoutMs,
    });
    if (outcome.kind !== 'ok') {
      this.commit({
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
    this.commit({
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
        ? { approval: { ...approval, status: 'consumed' as const, consumedAt: this.clock.now() } }
        : {}),
    });
    this.commit({
      event: {
        type: 'action.compensated',
        operationId: op.id,
        actionId: original.id,
        reason: `undone by ${undo.id}`,
      },
      action: { ...original, status: 'compensated', updatedAt: this.clock.now() },
    });
    return true;
  }

  private stop(to: 'failed' | 'blocked', reason: StopReason, detail: string): void {
    this.commit({
      to,
      event: {
        type: to === 'blocked' ? 'run.escalated' : 'run.failed',
        reason: detail,
        evidenceRefs: this.evidence.map((e) => e.id),
        data: { stopReason: reason },
      },
      stop: { reason, detail },
    });
  }

  // ── plumbing ──────────────────────────────────────────────────────────────

  private async loadTools(): Promise<string> {
    this.toolsHash ??= await this.executor.loadTools();
    return this.toolsHash;
  }

  private checkBlueprintTools(blueprint: Blueprint, contract: Contract): void {
    const issues: string[] = [];
    blueprint.operations.forEach((op, i) => {
      if (!this.executor.hasTool(op.tool))
        issues.push(`operations[${i}].tool: the world has no tool "${op.tool}"`);
      if (!(op.tool in contract.authority.tools))
        issues.push(`operations[${i}].tool: "${op.tool}" is not in the contract's authority`);
    });
    if (issues.length > 0) {
      throw new FaultlineError(
        'invalid-input',
        `Invalid blueprint ${blueprint.id}: ${issues.join('; ')}`,
        { issues },
      );
    }
  }

  private bind(runId: string, contract: Contract, blueprint: Blueprint): void {
    this.runId = runId;
    this.contract = contract;
    this.versionedBlueprint = blueprint;
    this.bindOperations(blueprint);
    const decorate = this.options.decoratePlanner;
    if (this.options.planner) {
      this.planner = decorate ? decorate(this.options.planner) : this.options.planner;
      this.builtInPlanner = undefined;
    } else {
      const own = new ScriptedPlanner(blueprint);
      this.planner = decorate ? decorate(own) : own;
      // Only a planner this runtime built and nobody wrapped is trusted to answer in type.
      this.builtInPlanner = decorate ? undefined : own;
    }
    this.plannerVersions = { ...this.planner.versions };
  }

  /** The plan in force: its operations by id, their citations by tool, their keys. */
  private bindOperations(blueprint: Blueprint): void {
    this.blueprint = blueprint;
    this.operationsById.clear();
    this.toolCitations.clear();
    this.keys.clear();
    const stableKeys = this.safeguards.idempotency;
    for (const op of blueprint.operations) {
      this.operationsById.set(op.id, op);
      const each = op.citations.filter((c) => c.each !== undefined);
      if (each.length > 0)
        this.toolCitations.set(op.tool, [...(this.toolCitations.get(op.tool) ?? []), ...each]);
      // Derived in one sweep, off the write path: a key never changes within a run.
      if (stableKeys && op.kind === 'write')
        this.keys.set(op.id, idempotencyKey(this.runId, op.id));
    }
  }

  private reload(): void {
    const run = this.store.getRun(this.runId);
    if (!run) throw new FaultlineError('not-found', `No run ${this.runId}`, { runId: this.runId });
    this.load(
      run,
      this.store.actions(this.runId),
      this.store.approvals(this.runId),
      this.store.evidence(this.runId),
    );
  }

  private load(
    run: RunRecord,
    actions: readonly ActionRecord[],
    approvals: readonly ApprovalRecord[],
    evidence: EvidenceRecord[],
  ): void {
    this.run = run;
    this.actions.clear();
    for (const a of actions) this.actions.set(a.operationId, a);
    this.approvals.clear();
    for (const a of approvals) this.approvals.set(a.actionId, a);
    this.evidence = evidence;
    this.rebuildResults();
  }

  /** Commits one change and mirrors it in memory only once the transaction succeeded. */
  private commit(change: PendingChange): void {
    const at = change.at ?? this.clock.now();
    const order = this.clock.sequence?.();
    if (order !== undefined) change.event.order = order;
    // Stamped in place rather than copied: every change is a fresh literal nothing else holds.
    const seq = this.store.commit(this.runId, Object.assign(change, { at }));
    const run = this.run;
    run.lastSeq = seq;
    run.updatedAt = at;
    if (change.to) run.state = change.to;
    if (change.stop) {
      run.stopReason = change.stop.reason;
      run.stopDetail = change.stop.detail;
    } else if (change.to && !holdsStopReason(change.to)) {
      // As the store does: a run resumed from a stop no longer answers for it.
      run.stopReason = null;
      run.stopDetail = null;
    }
    if (change.plan) run.planVersion++;
    if (change.compensationOwed !== undefined) run.compensationOwed = change.compensationOwed;
    const used = change.used;
    if (used) {
      if (used.toolCalls !== undefined) run.used.toolCalls += used.toolCalls;
      if (used.retries !== undefined) run.used.retries += used.retries;
      if (used.externalWrites !== undefined) run.used.externalWrites += used.externalWrites;
      if (used.costUsd !== undefined) run.used.costUsd += used.costUsd;
    }
    if (change.action) {
      this.actions.set(change.action.operationId, change.action);
      this.setView(
        change.action.operationId,
        change.action.tool,
        change.action.kind,
        change.action,
      );
    }
    if (change.approval) this.approvals.set(change.approval.actionId, change.approval);
    if (change.evidence) {
      for (const e of change.evidence) {
        this.evidence.push(e);
        if (e.operationId) this.results[e.operationId] = e.content;
      }
    }
  }

  private toExecuting(): { to?: WorkflowState } {
    return this.run.state === 'executing' ? {} : { to: 'executing' };
  }

  /**
   * The policy gate's verdict on an operation. A write is charged the calls it will make: its
   * fresh checks (unless `resend`: they were made before the first send), the send, and the
   * reads that verify it.
   */
  private gate(
    op: Operation,
    args: Record<string, unknown>,
    origin: ActionOrigin,
    resend = false,
  ): ReturnType<typeof checkAction> {
    const action: GateAction = {
      actionId: this.actionId(op.id),
      tool: op.tool,
      kind: op.kind,
      args,
      origin,
    };
    if (op.kind === 'write') action.calls = this.writeCalls(op, resend, args);
    return checkAction({
      contract: this.contract,
      action,
      used: this.run.used,
      elapsedMs: this.clock.now() - this.run.createdAt,
      approval: this.approvals.get(action.actionId),
      safeguards: this.safeguards,
    });
  }

  /**
   * The claim-to-source checks of a write sent with `args`: its operation's own, and every
   * citation with `each` declared for its tool (by any operation of the blueprint), made
   * concrete over the arguments as sent — so neither a claim a planner added nor a filing under
   * another operation goes unchecked. None without the `source-check` safeguard.
   */
  private citationsFor(op: Operation, args: Record<string, unknown>): ExpandedCitations {
    const perTool = this.toolCitations.get(op.tool);
    if (!this.safeguards['source-check'] || (op.citations.length === 0 && !perTool))
      return { checks: [], malformed: [] };
    const own = op.citations.filter((c) => c.each === undefined);
    return expandCitations([...own, ...(perTool ?? [])], { ...this.results, args });
  }

  /** Whether a write sent with `args` has claim-to-source checks to run. */
  private cites(op: Operation, args: Record<string, unknown>): boolean {
    const { checks, malformed } = this.citationsFor(op, args);
    return checks.length > 0 || malformed.length > 0;
  }

  /** Whether a write has an `alreadyDone` check to run (gated by `fresh-read`). */
  private checksInPlace(op: Operation): boolean {
    return op.alreadyDone !== undefined && this.safeguards['fresh-read'];
  }

  /** Tool calls a write makes at the least (see {@link gate}). */
  private writeCalls(op: Operation, resend: boolean, args: Record<string, unknown>): number {
    const verify = this.mustVerify(op) ? op.postconditions.length : 0;
    const inPlace = this.checksInPlace(op) ? 1 : 0;
    const cited = this.citationsFor(op, args).checks.length;
    // A resend after a wait checks its citations, and whether the effect is in place, again.
    if (resend) return cited + inPlace + 1 + verify;
    return op.preconditions.length + cited + inPlace + 1 + verify;
  }

  /** Call sites check `options.probe` first: an unarmed probe costs no await on the hot path. */
  private async probe(name: CrashProbe, op: Operation, attempt: number): Promise<void> {
    await this.options.probe?.(name, {
      runId: this.runId,
      operationId: op.id,
      tool: op.tool,
      attempt,
    });
  }

  /**
   * A wait's probe names the blueprint operation it is for: a check's read (`refund:precondition`)
   * waits for its write.
   */
  private async probeWait(name: CrashProbe, operationId: string, attempt: number): Promise<void> {
    const id = operationId.split(':')[0] ?? operationId;
    await this.options.probe?.(name, {
      runId: this.runId,
      operationId: id,
      tool: this.operation(id)?.tool ?? '',
      attempt,
    });
  }

  /**
   * A run stopped while it waited out a backoff or a retry-after (a crash mid-wait) first waits
   * out what is left of it: a crash never shortens the wait a failure class demands. Then it
   * leaves the wait, as a run stopped while waiting for a person does (its approval is asked
   * again: the answer, if one came, was lost with the process). True when the run was waiting
   * out a failure: nothing was in flight.
   */
  private async leaveInterruptedWait(): Promise<boolean> {
    const state = this.run.state;
    if (state !== 'retrying' && state !== 'waiting') return false;
    const wait = this.store.events(this.runId).findLast((e) => e.toState === state);
    const delayMs = wait?.data?.delayMs;
    const failed = wait?.type === 'supervisor.retry' || wait?.type === 'supervisor.wait';
    if (failed && typeof delayMs === 'number') {
      const left = wait.at + delayMs - this.clock.now();
      if (left > 0) {
        this.commit({
          event: {
            type: 'supervisor.wait-resumed',
            operationId: wait.operationId,
            reason: `resumed ${delayMs - left} ms into a ${delayMs} ms wait: waiting out the rest`,
            data: { delayMs: left },
          },
        });
        await this.clock.sleep(left);
      }
    }
    this.commit({ to: 'ready', event: { type: 'run.ready', reason: `resumed from ${state}` } });
    return failed;
  }

  private meta(operationId: string): Record<string, string> {
    return {
      [META.credential]: this.options.credential.token,
      [META.runId]: this.runId,
      [META.operationId]: operationId,
    };
  }

  private signalOption(): { signal?: AbortSignal } {
    return this.options.signal ? { signal: this.options.signal } : {};
  }

  /** Idempotency keys of this run's operations, derived once each (see {@link bind}). */
  private readonly keys = new Map<string, string>();

  private keyFor(operationId: string): string {
    if (this.safeguards.idempotency) {
      let key = this.keys.get(operationId);
      if (key === undefined) {
        key = idempotencyKey(this.runId, operationId);
        this.keys.set(operationId, key);
      }
      return key;
    }
    this.sends++;
    return perSendKey(this.runId, operationId, this.sends);
  }

  private actionId(operationId: string): string {
    return `${this.runId}:${operationId}`;
  }

  private mustAction(operationId: string): ActionRecord {
    const action = this.actions.get(operationId);
    if (!action)
      throw new FaultlineError('not-found', `No action for ${operationId} in run ${this.runId}`);
    return action;
  }

  private actionRecord(
    operationId: string,
    tool: string,
    kind: 'read' | 'write',
    args: Record<string, unknown>,
    status: ActionRecord['status'],
    origin: ActionOrigin,
  ): ActionRecord {
    const now = this.clock.now();
    const previous = this.actions.get(operationId);
    return {
      id: this.actionId(operationId),
      runId: this.runId,
      operationId,
      tool,
      kind,
      args,
      idempotencyKey: previous?.idempotencyKey ?? null,
      status,
      attempts: previous?.attempts ?? 0,
      result: null,
      errorClass: null,
      origin,
      approvalId: previous?.approvalId ?? null,
      compensates: null,
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
    };
  }

  private evidenceRecord(
    operationId: string,
    tool: string,
    requestId: string | null,
    content: unknown,
    trust: 'trusted' | 'untrusted',
  ): EvidenceRecord {
    // Named after the event that records it: unique even when a run starts over.
    return {
      id: `${this.runId}:ev${this.run.lastSeq + 1}`,
      runId: this.runId,
      at: this.clock.now(),
      operationId,
      tool,
      requestId,
      trust,
      content,
    };
  }

  private operation(id: string): Operation | undefined {
    return this.operationsById.get(id);
  }

  /** The run's input and each operation's latest result, by operation id. */
  private scope(action?: ActionRecord): Readonly<Record<string, unknown>> {
    if (!action) return this.results;
    return extendScope(this.results, {
      action: { idempotency_key: action.idempotencyKey, args: action.args },
    });
  }

  private rebuildResults(): void {
    this.results = { input: this.run.input };
    for (const e of this.evidence) if (e.operationId) this.results[e.operationId] = e.content;
    this.views = [];
    this.viewIndex.clear();
    for (const op of this.blueprint.operations) this.setView(op.id, op.tool, op.kind, undefined);
    for (const action of this.actions.values())
      this.setView(action.operationId, action.tool, action.kind, action);
  }

  private setView(
    id: string,
    tool: string,
    kind: 'read' | 'write',
    action: ActionRecord | undefined,
  ): void {
    const view: OperationView = { id, tool, kind, status: action?.status ?? 'pending' };
    if (action?.result !== undefined && action.result !== null) view.result = action.result;
    const at = this.viewIndex.get(id);
    if (at === undefined) {
      this.viewIndex.set(id, this.views.length);
      this.views.push(view);
      return;
    }
    // Undoing an operation in place would hide it from a planner resuming its scan: a new list.
    const before = this.views[at]?.status ?? 'pending';
    if (DONE_STATUSES.has(before) && !DONE_STATUSES.has(view.status)) this.views = [...this.views];
    this.views[at] = view;
  }

  private resolveArgs(op: Operation): Record<string, unknown> {
    const scope = this.scope();
    return Object.fromEntries(Object.entries(op.args).map(([k, v]) => [k, resolveValue(v, scope)]));
  }

  private workingContext(): WorkingContext {
    const context: WorkingContext = {
      runId: this.runId,
      objective: this.contract.objective,
      decisionBoundary: this.contract.decisionBoundary,
      mode: this.contract.autonomy,
      input: this.run.input,
      planVersion: this.run.planVersion,
      operations: this.views,
      evidence: this.evidence,
      scope: this.scope(),
      plan: {
        by: isObjectiveOnly(this.versionedBlueprint) ? 'objective' : 'blueprint',
        operations: this.blueprint.operations,
        completion: this.blueprint.completion,
      },
      tools: this.executor.tools,
      evidenceRequired: this.contract.evidenceRequired,
    };
    if (this.lastFailure) context.lastFailure = this.lastFailure;
    if (this.resumePacket) context.resume = this.resumePacket;
    return context;
  }

  private buildResumePacket(): ResumePacket {
    const confirmed = [...this.actions.values()].filter(
      (a) => a.status === 'confirmed' || a.status === 'reconciled',
    );
    const open = [...this.actions.values()].filter(mayHaveBeenSent);
    const pendingApprovals = [...this.approvals.values()].filter((a) => a.status === 'requested');
    const b = this.contract.budgets;
    const u = this.run.used;
    return {
      objective: this.contract.objective,
      state: this.run.state,
      confirmedActions: confirmed.map((a) => ({
        operationId: a.operationId,
        tool: a.tool,
        result: a.result,
      })),
      openQuestions: [
        ...open.map((a) => `did ${a.operationId} (${a.tool}) take effect?`),
        ...pendingApprovals.map((a) => `approval ${a.id} is still pending`),
      ],
      remainingAuthority: {
        tools: Object.keys(this.contract.authority.tools),
        budgets: {
          toolCalls: b.toolCalls - u.toolCalls,
          retries: b.retries - u.retries,
          externalWrites: b.externalWrites - u.externalWrites,
          virtualTimeMs: b.virtualTimeMs - (this.clock.now() - this.run.createdAt),
        },
      },
      eligibleNextActions: this.blueprint.operations
        .filter((o) => !DONE_STATUSES.has(this.actions.get(o.id)?.status ?? 'pending'))
        .map((o) => o.id),
    };
  }

  private currentVersions(toolsHash: string): RunVersions {
    return {
      contract: this.contract.version,
      contractHash: contentHash(this.contract),
      blueprint: this.versionedBlueprint.version,
      blueprintHash: contentHash(this.versionedBlueprint),
      model: this.planner.versions.model,
      prompt: this.planner.versions.prompt,
      policy: this.options.policyVersion ?? POLICY_VERSION,
      toolSchemasHash: toolsHash,
    };
  }

  private supervisorInput(
    failure: Failure,
    attempt: number,
    operationId: string,
    sideEffect: boolean,
  ): Parameters<typeof decide>[0] {
    return {
      failure,
      attempt,
      retriesUsed: this.run.used.retries,
      retryBudget: this.contract.budgets.retries,
      sideEffectPossible: sideEffect,
      safeguards: this.safeguards,
      jitterSeed: `${this.runId}:${operationId}`,
      backoff: this.backoff,
      stopConditions: this.contract.stopConditions,
    };
  }

  private outcome(): RunOutcome {
    return {
      runId: this.runId,
      state: this.run.state,
      stopReason: this.run.stopReason,
      detail: this.run.stopDetail,
    };
  }
}

function toFailure(outcome: Exclude<CallOutcome, { kind: 'ok' }>, write: boolean): Failure {
  if (outcome.kind === 'no-reply')
    return { class: write ? 'ambiguous' : 'timeout', message: outcome.message };
  return outcome.retryAfterMs === undefined
    ? { class: outcome.class, message: outcome.message }
    : { class: outcome.class, message: outcome.message, retryAfterMs: outcome.retryAfterMs };
}

function diffVersions(stored: RunVersions, current: RunVersions): string[] {
  const changed: string[] = [];
  for (const key of Object.keys(stored) as (keyof RunVersions)[]) {
    if (stored[key] !== current[key]) changed.push(`${key} ${stored[key]} → ${current[key]}`);
  }
  return changed;
}

function sameArgs(a: Record<string, unknown> | undefined, b: Record<string, unknown>): boolean {
  if (!a) return false;
  return Object.entries(b).every(([k, v]) => JSON.stringify(a[k]) === JSON.stringify(v));
}

/**
 * Whether a write may have reached the world: its outcome is unknown (`ambiguous`), or its
 * intent was committed with its idempotency key (which comes before any send). A write whose
 * approval was asked for is recorded `intended` without a key: it waited for a person, and
 * nothing was sent, so a resume asks for the approval again rather than reconcile a send that
 * never happened (and resend it with no key and no token).
 */
function mayHaveBeenSent(action: ActionRecord): boolean {
  if (action.kind !== 'write') return false;
  return (
    action.status === 'ambiguous' ||
    (action.status === 'intended' && action.idempotencyKey !== null)
  );
}

/** Whether an action's result marks a write skipped because its effect was already in place. */
function isAlreadyDone(result: unknown): boolean {
  return typeof result === 'object' && result !== null && 'alreadyDone' in result;
}
