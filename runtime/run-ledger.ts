import type { Operation } from './blueprint.js';
import { FaultlineError } from './errors.js';
import { extendScope, resolveValue } from './predicate.js';
import type {
  ActionOrigin,
  ActionRecord,
  ApprovalRecord,
  EvidenceRecord,
  RunRecord,
} from './records.js';
import { DONE_STATUSES } from './records.js';
import { holdsStopReason, type WorkflowState } from './states.js';
import type { OperationView } from './working-context.js';
import type { PendingChange } from './step-result.js';
import type { RunRoles, RunOutcome } from './run-roles.js';

/**
 * The run's ledger: the in-memory mirror of what the run committed (run record, actions,
 * approvals, evidence, results, the planner's operation views), and the only caller of
 * `RunStore.commit`. A change is one transaction and one event; the mirror follows it only
 * once the transaction succeeded. Also builds the records a commit carries (actions,
 * evidence), stamped from the run's clock.
 */
export class RunLedger {
  // Authoritative copies live in the store; these mirror what was committed.
  run!: RunRecord;
  readonly actions = new Map<string, ActionRecord>();
  readonly approvals = new Map<string, ApprovalRecord>();
  evidence: EvidenceRecord[] = [];

  /** The run's input and each operation's latest result, kept current as evidence is committed. */
  results: Record<string, unknown> = {};

  /** What the planner sees of each operation, in blueprint order then content-proposed ones. */
  views: OperationView[] = [];
  private readonly viewIndex = new Map<string, number>();

  constructor(private readonly rt: RunRoles) {}

  /** Reads the bound run's records back from the store into the mirror. */
  reload(): void {
    const run = this.rt.store.getRun(this.rt.binding.runId);
    if (!run)
      throw new FaultlineError('not-found', `No run ${this.rt.binding.runId}`, {
        runId: this.rt.binding.runId,
      });
    this.load(
      run,
      this.rt.store.actions(this.rt.binding.runId),
      this.rt.store.approvals(this.rt.binding.runId),
      this.rt.store.evidence(this.rt.binding.runId),
    );
  }

  /** Replaces the mirror with these records, and rebuilds results and views from them. */
  load(
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
  commit(change: PendingChange): void {
    const at = change.at ?? this.rt.clock.now();
    const order = this.rt.clock.sequence?.();
    if (order !== undefined) change.event.order = order;
    // Stamped in place rather than copied: every change is a fresh literal nothing else holds.
    const seq = this.rt.store.commit(this.rt.binding.runId, Object.assign(change, { at }));
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

  /** The transition to `executing`, unless the run is there already. */
  toExecuting(): { to?: WorkflowState } {
    return this.run.state === 'executing' ? {} : { to: 'executing' };
  }

  /** The id of the run's action for an operation. */
  actionId(operationId: string): string {
    return `${this.rt.binding.runId}:${operationId}`;
  }

  /** The committed action of an operation; throws when there is none. */
  mustAction(operationId: string): ActionRecord {
    const action = this.actions.get(operationId);
    if (!action)
      throw new FaultlineError(
        'not-found',
        `No action for ${operationId} in run ${this.rt.binding.runId}`,
      );
    return action;
  }

  /** A new action record for an operation, keeping what its previous record holds (key, attempts, approval, creation time). */
  actionRecord(
    operationId: string,
    tool: string,
    kind: 'read' | 'write',
    args: Record<string, unknown>,
    status: ActionRecord['status'],
    origin: ActionOrigin,
  ): ActionRecord {
    const now = this.rt.clock.now();
    const previous = this.actions.get(operationId);
    return {
      id: this.actionId(operationId),
      runId: this.rt.binding.runId,
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

  /** An evidence record, stamped now and named after the event that will commit it. */
  evidenceRecord(
    operationId: string,
    tool: string,
    requestId: string | null,
    content: unknown,
    trust: 'trusted' | 'untrusted',
  ): EvidenceRecord {
    // Named after the event that records it: unique even when a run starts over.
    return {
      id: `${this.rt.binding.runId}:ev${this.run.lastSeq + 1}`,
      runId: this.rt.binding.runId,
      at: this.rt.clock.now(),
      operationId,
      tool,
      requestId,
      trust,
      content,
    };
  }

  /** The run's input and each operation's latest result, by operation id. */
  scope(action?: ActionRecord): Readonly<Record<string, unknown>> {
    if (!action) return this.results;
    return extendScope(this.results, {
      action: { idempotency_key: action.idempotencyKey, args: action.args },
    });
  }

  /** Results and the planner's views rebuilt from the mirror (a new views list). */
  rebuildResults(): void {
    this.results = { input: this.run.input };
    for (const e of this.evidence) if (e.operationId) this.results[e.operationId] = e.content;
    this.views = [];
    this.viewIndex.clear();
    for (const op of this.rt.binding.blueprint.operations)
      this.setView(op.id, op.tool, op.kind, undefined);
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

  /** An operation's arguments resolved against the run's results. */
  resolveArgs(op: Operation): Record<string, unknown> {
    const scope = this.scope();
    return Object.fromEntries(Object.entries(op.args).map(([k, v]) => [k, resolveValue(v, scope)]));
  }

  /** The run's outcome as it stands. */
  outcome(): RunOutcome {
    return {
      runId: this.rt.binding.runId,
      state: this.run.state,
      stopReason: this.run.stopReason,
      detail: this.run.stopDetail,
    };
  }
}
