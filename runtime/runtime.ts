import { ActionGate } from './action-gate.js';
import { ApprovalRequests } from './approval-requests.js';
import { parseBlueprint } from './blueprint.js';
import type { Clock } from './clock.js';
import { parseContract } from './contract.js';
import { FaultlineError } from './errors.js';
import { Executor } from './executor.js';
import { FailureHandling } from './failure-handling.js';
import { noOperator, type Operator } from './operator.js';
import { OperatorDesk } from './operator-desk.js';
import { PlannerContext } from './planner-context.js';
import { PreSendChecks } from './pre-send-checks.js';
import { Reconciler } from './reconciler.js';
import type { ActionRecord, RunRecord, RunVersions } from './records.js';
import { RunBinding } from './run-binding.js';
import { RunLedger } from './run-ledger.js';
import { RunLoop } from './run-loop.js';
import type { RunOutcome, RunRoles, RuntimeOptions } from './run-roles.js';
import { withSafeguards, type Safeguards } from './safeguards.js';
import { isTerminal } from './states.js';
import type { RunStore } from './store.js';
import { ToolReads } from './tool-reads.js';
import { Verification } from './verification.js';
import { WriteProtocol } from './write-protocol.js';
import { emptyPlan, isObjectiveOnly, latestWrittenPlan, type Planning } from './written-plan.js';

export type { RunOutcome, RuntimeOptions } from './run-roles.js';

export interface StartInput {
  runId: string;
  contract: unknown;
  /** Ignored with `planning: 'objective'`: then the planner writes the plan (a `plan` proposal). */
  blueprint?: unknown;
  /** `objective`: the run is given only its contract and the world's tools. Default `blueprint`. */
  planning?: Planning;
  input?: Record<string, unknown>;
}

/**
 * The reference runtime: the planner proposes, deterministic code disposes. Each write is
 * replay-safe — intent persisted with an idempotency key, policy checked against fresh state,
 * sent, an ambiguous result reconciled before anything else, the confirmed outcome persisted
 * with a checkpoint, postconditions verified, then the run advances. A new instance over the
 * same store resumes any run from its last checkpoint without redoing a confirmed action.
 *
 * This class is the composition only: it starts or resumes a run and wires the roles that do
 * the work, each a module of its own (the run loop, the write protocol, the reconciler, ...;
 * see {@link RunRoles}).
 *
 * @example
 * ```ts
 * const runtime = new ReferenceRuntime({ store, client, clock, credential });
 * const outcome = await runtime.start({ runId: 'r1', contract, blueprint, input: { order_id: 'ord_1' } });
 * ```
 */
export class ReferenceRuntime {
  private readonly rt: RunRoles;

  constructor(options: RuntimeOptions) {
    this.rt = new Roles(options);
  }

  /** Validates the contract and blueprint (writing nothing if either is bad), then runs. */
  async start(input: StartInput): Promise<RunOutcome> {
    const contract = parseContract(input.contract, `contract of run ${input.runId}`);
    const objectiveOnly = input.planning === 'objective';
    if (objectiveOnly && !this.rt.options.planner) {
      throw new FaultlineError(
        'invalid-input',
        `Run ${input.runId}: planning 'objective' needs a planner that writes the plan (options.planner)`,
        { runId: input.runId },
      );
    }
    const blueprint = objectiveOnly
      ? emptyPlan()
      : parseBlueprint(input.blueprint, `blueprint of run ${input.runId}`);
    const toolsHash = await this.rt.binding.loadTools();
    this.rt.binding.checkBlueprintTools(blueprint, contract);
    if (this.rt.store.hasRun(input.runId)) {
      throw new FaultlineError(
        'invalid-input',
        `Run ${input.runId} already exists in ${this.rt.store.path}; resume it instead`,
        {
          runId: input.runId,
        },
      );
    }
    this.rt.binding.bind(input.runId, contract, blueprint);
    const now = this.rt.clock.now();
    const run = this.rt.store.createRun(
      {
        id: input.runId,
        mode: contract.autonomy,
        objective: contract.objective,
        contract,
        blueprint,
        versions: this.rt.binding.currentVersions(toolsHash),
        input: input.input ?? {},
        used: { toolCalls: 0, retries: 0, externalWrites: 0, costUsd: 0 },
        createdAt: now,
      },
      {
        type: 'run.created',
        reason: contract.objective,
        ...(this.rt.clock.sequence ? { order: this.rt.clock.sequence() } : {}),
      },
    );
    // A new run has no records yet: nothing to read back.
    this.rt.ledger.load(run, [], [], []);
    const created = objectiveOnly
      ? 'objective only: the planner writes the plan'
      : 'initial plan from blueprint';
    this.rt.ledger.commit({
      to: 'planned',
      event: { type: 'plan.created', reason: created },
      plan: {
        reason: created,
        operations: blueprint.operations.map((o) => o.id),
      },
      checkpoint: {
        boundary: 'validated-input',
        data: { contractHash: this.rt.ledger.run.versions.contractHash },
      },
    });
    this.rt.ledger.commit({
      to: 'ready',
      event: { type: 'plan.approved', reason: `autonomy ${contract.autonomy}` },
      checkpoint: {
        boundary: 'approved-plan',
        data: { planVersion: this.rt.ledger.run.planVersion },
      },
    });
    return this.rt.loop.loop();
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
    const stored = this.rt.store.getRun(runId);
    if (!stored)
      throw new FaultlineError('not-found', `No run ${runId} in ${this.rt.store.path}`, { runId });
    const contract = parseContract(changes.contract ?? stored.contract, `contract of run ${runId}`);
    const given = changes.blueprint ?? stored.blueprint;
    const blueprint = isObjectiveOnly(given)
      ? emptyPlan()
      : parseBlueprint(given, `blueprint of run ${runId}`);
    const toolsHash = await this.rt.binding.loadTools();
    this.rt.binding.bind(runId, contract, blueprint);
    // An objective-only run goes on with the last plan its planner wrote, as stored.
    if (isObjectiveOnly(given))
      this.rt.binding.bindOperations(latestWrittenPlan(this.rt.store.plans(runId)));
    this.rt.ledger.reload();
    if (isTerminal(this.rt.ledger.run.state)) return this.rt.ledger.outcome();

    const fromScratch = !this.rt.safeguards.checkpoint;
    if (fromScratch) {
      // Without checkpoints there is nothing to resume from: start the plan over.
      this.rt.ledger.actions.clear();
      this.rt.ledger.approvals.clear();
      this.rt.ledger.evidence = [];
      this.rt.ledger.rebuildResults();
    }
    this.rt.plannerContext.resumePacket = this.rt.plannerContext.buildResumePacket();
    const changed = diffVersions(
      this.rt.ledger.run.versions,
      this.rt.binding.currentVersions(toolsHash),
    );
    this.rt.ledger.commit({
      event: {
        type: 'run.resumed',
        reason: fromScratch ? 'no checkpoint: starting over' : 'resumed from last checkpoint',
        data: {
          confirmed: this.rt.plannerContext.resumePacket.confirmedActions.map((a) => a.operationId),
          openQuestions: this.rt.plannerContext.resumePacket.openQuestions,
        },
      },
    });
    const waited = await this.rt.failures.leaveInterruptedWait();
    if (changed.length > 0 || this.rt.ledger.run.state === 'blocked') {
      const reason =
        changed.length > 0
          ? `versions changed on resume: ${changed.join(', ')}`
          : 'resumed after being blocked';
      this.rt.ledger.commit({
        to: 'planned',
        event: { type: 'plan.replanned', reason },
        plan: { reason, operations: this.rt.binding.blueprint.operations.map((o) => o.id) },
      });
    }
    if (this.rt.ledger.run.state !== 'ready') {
      this.rt.ledger.commit({ to: 'ready', event: { type: 'run.ready', reason: 'resumed' } });
    }
    const reconciled = await this.rt.reconciler.reconcileOpenActions(!waited);
    if (!reconciled.ok)
      this.rt.failures.handleFailure(reconciled.failure, reconciled.operationId, true);
    return this.rt.loop.loop();
  }

  /** The run's durable records, for white-box grading and debugging. */
  records(runId: string = this.rt.binding.runId): {
    run: RunRecord | undefined;
    events: ReturnType<RunStore['events']>;
    actions: ActionRecord[];
  } {
    return {
      run: this.rt.store.getRun(runId),
      events: this.rt.store.events(runId),
      actions: this.rt.store.actions(runId),
    };
  }
}

/**
 * The roles of one runtime instance, wired to each other through this one object. Each role
 * keeps its own state; none reads another's at construction, so the order here is free.
 */
class Roles implements RunRoles {
  readonly store: RunStore;
  readonly clock: Clock;
  readonly executor: Executor;
  readonly operator: Operator;
  readonly safeguards: Safeguards;
  readonly callTimeoutMs: number;
  readonly backoff: { baseMs: number; capMs: number };
  readonly ledger: RunLedger = new RunLedger(this);
  readonly binding: RunBinding = new RunBinding(this);
  readonly loop: RunLoop = new RunLoop(this);
  readonly writes: WriteProtocol = new WriteProtocol(this);
  readonly reconciler: Reconciler = new Reconciler(this);
  readonly checks: PreSendChecks = new PreSendChecks(this);
  readonly reads: ToolReads = new ToolReads(this);
  readonly policyGate: ActionGate = new ActionGate(this);
  readonly approvalRequests: ApprovalRequests = new ApprovalRequests(this);
  readonly operatorDesk: OperatorDesk = new OperatorDesk(this);
  readonly plannerContext: PlannerContext = new PlannerContext(this);
  readonly failures: FailureHandling = new FailureHandling(this);
  readonly verification: Verification = new Verification(this);

  constructor(readonly options: RuntimeOptions) {
    this.store = options.store;
    this.clock = options.clock;
    this.executor = new Executor(options.client, options.clock);
    this.operator = options.operator ?? noOperator;
    this.safeguards = withSafeguards(options.safeguards);
    this.callTimeoutMs = options.callTimeoutMs ?? 30_000;
    this.backoff = options.backoff ?? { baseMs: 1_000, capMs: 60_000 };
  }
}

function diffVersions(stored: RunVersions, current: RunVersions): string[] {
  const changed: string[] = [];
  for (const key of Object.keys(stored) as (keyof RunVersions)[]) {
    if (stored[key] !== current[key]) changed.push(`${key} ${stored[key]} → ${current[key]}`);
  }
  return changed;
}
