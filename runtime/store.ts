import Database from 'better-sqlite3';
import { FaultlineError } from './errors.js';
import { assertTransition, type WorkflowState } from './states.js';
import { MIGRATIONS, SCHEMA_VERSION } from './store-schema.js';
import type {
  ActionRecord,
  ApprovalRecord,
  BudgetUse,
  CheckpointBoundary,
  CheckpointRecord,
  EventRecord,
  EvidenceRecord,
  PlanRecord,
  RunRecord,
} from './records.js';
import type { StopReason } from './contract.js';

type Row = Record<string, unknown>;

export type NewRun = Omit<RunRecord, 'lastSeq' | 'updatedAt' | 'planVersion' | 'state' | 'stopReason' | 'stopDetail' | 'compensationOwed'>;

/** The event written with a change: everything but run id, sequence and states, which the store fills. */
export type EventInput = Partial<Omit<EventRecord, 'runId' | 'seq' | 'fromState' | 'toState' | 'at'>> & {
  type: string;
};

/**
 * One state change, committed as one transaction: the event that explains it, an optional
 * state transition (checked against the table before anything is written), and the records
 * that change with it.
 */
export interface Change {
  at: number;
  event: EventInput;
  to?: WorkflowState;
  stop?: { reason: StopReason; detail: string };
  action?: ActionRecord;
  evidence?: EvidenceRecord[];
  approval?: ApprovalRecord;
  plan?: { reason: string; operations: string[] };
  checkpoint?: { boundary: CheckpointBoundary; data: Record<string, unknown> };
  used?: Partial<BudgetUse>;
  compensationOwed?: boolean;
}

const json = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));
const parse = <T>(v: unknown, fallback: T): T => (typeof v === 'string' ? (JSON.parse(v) as T) : fallback);

/**
 * The runtime's durable store on SQLite (WAL). Every method that changes anything is one
 * transaction; events are append-only (enforced by triggers); an illegal transition throws
 * before anything is written.
 *
 * Durability: WAL with `synchronous=NORMAL` survives a killed process (every commit is in the
 * WAL before `commit` returns); only a power loss can drop the last commits.
 *
 * @example
 * ```ts
 * const store = RunStore.open('.faultline/runs.db');
 * const run = store.getRun('run-1');
 * store.close();
 * ```
 */
export class RunStore {
  private readonly stmts;

  private constructor(private readonly db: Database.Database, readonly path: string) {
    this.commitTx = db.transaction((runId: string, change: Change) => this.applyChange(runId, change));
    this.stmts = {
      runState: db.prepare('SELECT state, last_seq, used_json FROM runs WHERE id = ?'),
      updateRun: db.prepare(
        `UPDATE runs SET state = ?, last_seq = ?, updated_at = ?, used_json = ?,
           stop_reason = COALESCE(?, stop_reason), stop_detail = COALESCE(?, stop_detail),
           plan_version = plan_version + ?, compensation_owed = COALESCE(?, compensation_owed)
         WHERE id = ?`,
      ),
      insertEvent: db.prepare(
        `INSERT INTO events (run_id, seq, at, type, from_state, to_state, reason, operation_id, action_id,
           input_refs, evidence_refs, policy_rule, request_id, idempotency_key, result_class, budget_delta,
           operator_action, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      upsertAction: db.prepare(
        `INSERT INTO actions (id, run_id, operation_id, tool, kind, args_json, idempotency_key, status, attempts,
           result_json, error_class, origin, approval_id, compensates, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET status = excluded.status, attempts = excluded.attempts,
           args_json = excluded.args_json, result_json = excluded.result_json, error_class = excluded.error_class,
           approval_id = excluded.approval_id, updated_at = excluded.updated_at`,
      ),
      insertEvidence: db.prepare(
        `INSERT INTO evidence (id, run_id, at, operation_id, tool, request_id, trust, content_json)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      upsertApproval: db.prepare(
        `INSERT INTO approvals (id, run_id, action_id, tool, status, approver, reason, requested_at, decided_at,
           consumed_at, scope_json, preview_json, evidence_refs, token)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET status = excluded.status, approver = excluded.approver,
           reason = excluded.reason, decided_at = excluded.decided_at, consumed_at = excluded.consumed_at,
           token = excluded.token`,
      ),
      insertPlan: db.prepare(
        `INSERT INTO plans (run_id, version, at, reason, operations_json)
         VALUES (?, (SELECT plan_version FROM runs WHERE id = ?) + 1, ?, ?, ?)`,
      ),
      insertCheckpoint: db.prepare(
        'INSERT INTO checkpoints (run_id, seq, at, boundary, state, data) VALUES (?, ?, ?, ?, ?, ?)',
      ),
    };
  }

  /** Opens (creating or migrating) a store file; `':memory:'` for a throwaway one. */
  static open(path: string): RunStore {
    const db = new Database(path);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      migrate(db, path);
      return new RunStore(db, path);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** Creates a run in state `created` with its first event, in one transaction. */
  createRun(run: NewRun, event: EventInput): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO runs (id, state, mode, objective, contract_json, contract_version, contract_hash,
             blueprint_json, blueprint_version, blueprint_hash, model_version, prompt_version, policy_version,
             tool_schemas_hash, input_json, used_json, last_seq, created_at, updated_at)
           VALUES (?, 'created', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
        )
        .run(
          run.id,
          run.mode,
          run.objective,
          JSON.stringify(run.contract),
          run.versions.contract,
          run.versions.contractHash,
          JSON.stringify(run.blueprint),
          run.versions.blueprint,
          run.versions.blueprintHash,
          run.versions.model,
          run.versions.prompt,
          run.versions.policy,
          run.versions.toolSchemasHash,
          JSON.stringify(run.input),
          JSON.stringify(run.used),
          run.createdAt,
          run.createdAt,
        );
      this.insertEvent(run.id, 1, run.createdAt, null, 'created', event);
    })();
  }

  /**
   * Commits one change in one transaction and returns the event's sequence number. Throws
   * `illegal-transition` (writing nothing) when `change.to` is not reachable from the run's state.
   */
  commit(runId: string, change: Change): number {
    return this.commitTx(runId, change);
  }

  private readonly commitTx: (runId: string, change: Change) => number;

  private applyChange(runId: string, change: Change): number {
    {
      const row = this.stmts.runState.get(runId) as Row | undefined;
      if (!row) throw new FaultlineError('not-found', `No run "${runId}" in ${this.path}`, { runId });
      const from = row.state as WorkflowState;
      const to = change.to ?? from;
      if (change.to !== undefined) assertTransition(from, change.to);
      const seq = (row.last_seq as number) + 1;
      let used = row.used_json as string;
      if (change.used) {
        const current = JSON.parse(used) as BudgetUse;
        for (const [k, v] of Object.entries(change.used)) current[k as keyof BudgetUse] += v;
        used = JSON.stringify(current);
      }
      if (change.plan) {
        this.stmts.insertPlan.run(runId, runId, change.at, change.plan.reason, JSON.stringify(change.plan.operations));
      }
      this.stmts.updateRun.run(
        to,
        seq,
        change.at,
        used,
        change.stop?.reason ?? null,
        change.stop?.detail ?? null,
        change.plan ? 1 : 0,
        change.compensationOwed === undefined ? null : change.compensationOwed ? 1 : 0,
        runId,
      );
      this.insertEvent(runId, seq, change.at, change.to === undefined ? null : from, change.to ?? null, {
        ...change.event,
        budgetDelta: change.event.budgetDelta ?? change.used ?? null,
      });
      if (change.action) this.writeAction(change.action);
      for (const e of change.evidence ?? []) {
        this.stmts.insertEvidence.run(e.id, e.runId, e.at, e.operationId, e.tool, e.requestId, e.trust, JSON.stringify(e.content));
      }
      if (change.approval) this.writeApproval(change.approval);
      if (change.checkpoint) {
        this.stmts.insertCheckpoint.run(runId, seq, change.at, change.checkpoint.boundary, to, JSON.stringify(change.checkpoint.data));
      }
      return seq;
    }
  }

  private insertEvent(runId: string, seq: number, at: number, from: WorkflowState | null, to: WorkflowState | null, e: EventInput): void {
    this.stmts.insertEvent.run(
      runId,
      seq,
      at,
      e.type,
      from,
      to,
      e.reason ?? null,
      e.operationId ?? null,
      e.actionId ?? null,
      e.inputRefs?.length ? JSON.stringify(e.inputRefs) : null,
      e.evidenceRefs?.length ? JSON.stringify(e.evidenceRefs) : null,
      e.policyRule ?? null,
      e.requestId ?? null,
      e.idempotencyKey ?? null,
      e.resultClass ?? null,
      json(e.budgetDelta),
      e.operatorAction ?? null,
      json(e.data),
    );
  }

  private writeAction(a: ActionRecord): void {
    this.stmts.upsertAction.run(
      a.id,
      a.runId,
      a.operationId,
      a.tool,
      a.kind,
      JSON.stringify(a.args),
      a.idempotencyKey,
      a.status,
      a.attempts,
      json(a.result),
      a.errorClass,
      a.origin,
      a.approvalId,
      a.compensates,
      a.createdAt,
      a.updatedAt,
    );
  }

  private writeApproval(a: ApprovalRecord): void {
    this.stmts.upsertApproval.run(
      a.id,
      a.runId,
      a.actionId,
      a.tool,
      a.status,
      a.approver,
      a.reason,
      a.requestedAt,
      a.decidedAt,
      a.consumedAt,
      JSON.stringify(a.scope),
      JSON.stringify(a.preview),
      JSON.stringify(a.evidenceRefs),
      a.token,
    );
  }

  getRun(runId: string): RunRecord | undefined {
    const r = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(runId) as Row | undefined;
    return r ? toRun(r) : undefined;
  }

  listRuns(): RunRecord[] {
    return (this.db.prepare('SELECT * FROM runs ORDER BY created_at, id').all() as Row[]).map(toRun);
  }

  events(runId: string): EventRecord[] {
    return (this.db.prepare('SELECT * FROM events WHERE run_id = ? ORDER BY seq').all(runId) as Row[]).map((r) => ({
      runId: r.run_id as string,
      seq: r.seq as number,
      at: r.at as number,
      type: r.type as string,
      fromState: (r.from_state ?? null) as WorkflowState | null,
      toState: (r.to_state ?? null) as WorkflowState | null,
      reason: (r.reason ?? null) as string | null,
      operationId: (r.operation_id ?? null) as string | null,
      actionId: (r.action_id ?? null) as string | null,
      inputRefs: parse<string[]>(r.input_refs, []),
      evidenceRefs: parse<string[]>(r.evidence_refs, []),
      policyRule: (r.policy_rule ?? null) as string | null,
      requestId: (r.request_id ?? null) as string | null,
      idempotencyKey: (r.idempotency_key ?? null) as string | null,
      resultClass: (r.result_class ?? null) as EventRecord['resultClass'],
      budgetDelta: parse<Partial<BudgetUse> | null>(r.budget_delta, null),
      operatorAction: (r.operator_action ?? null) as string | null,
      data: parse<Record<string, unknown> | null>(r.data, null),
    }));
  }

  actions(runId: string): ActionRecord[] {
    return (this.db.prepare('SELECT * FROM actions WHERE run_id = ? ORDER BY created_at, rowid').all(runId) as Row[]).map(toAction);
  }

  action(actionId: string): ActionRecord | undefined {
    const r = this.db.prepare('SELECT * FROM actions WHERE id = ?').get(actionId) as Row | undefined;
    return r ? toAction(r) : undefined;
  }

  evidence(runId: string): EvidenceRecord[] {
    return (this.db.prepare('SELECT * FROM evidence WHERE run_id = ? ORDER BY at, rowid').all(runId) as Row[]).map((r) => ({
      id: r.id as string,
      runId: r.run_id as string,
      at: r.at as number,
      operationId: (r.operation_id ?? null) as string | null,
      tool: r.tool as string,
      requestId: (r.request_id ?? null) as string | null,
      trust: r.trust as 'trusted' | 'untrusted',
      content: JSON.parse(r.content_json as string) as unknown,
    }));
  }

  approvals(runId: string): ApprovalRecord[] {
    return (this.db.prepare('SELECT * FROM approvals WHERE run_id = ? ORDER BY requested_at, rowid').all(runId) as Row[]).map((r) => ({
      id: r.id as string,
      runId: r.run_id as string,
      actionId: r.action_id as string,
      tool: r.tool as string,
      status: r.status as ApprovalRecord['status'],
      approver: (r.approver ?? null) as string | null,
      reason: (r.reason ?? null) as string | null,
      requestedAt: r.requested_at as number,
      decidedAt: (r.decided_at ?? null) as number | null,
      consumedAt: (r.consumed_at ?? null) as number | null,
      scope: JSON.parse(r.scope_json as string) as Record<string, unknown>,
      preview: JSON.parse(r.preview_json as string) as Record<string, unknown>,
      evidenceRefs: JSON.parse(r.evidence_refs as string) as string[],
      token: (r.token ?? null) as string | null,
    }));
  }

  plans(runId: string): PlanRecord[] {
    return (this.db.prepare('SELECT * FROM plans WHERE run_id = ? ORDER BY version').all(runId) as Row[]).map((r) => ({
      runId: r.run_id as string,
      version: r.version as number,
      at: r.at as number,
      reason: r.reason as string,
      operations: JSON.parse(r.operations_json as string) as string[],
    }));
  }

  checkpoints(runId: string): CheckpointRecord[] {
    return (this.db.prepare('SELECT * FROM checkpoints WHERE run_id = ? ORDER BY seq').all(runId) as Row[]).map((r) => ({
      runId: r.run_id as string,
      seq: r.seq as number,
      at: r.at as number,
      boundary: r.boundary as CheckpointBoundary,
      state: r.state as WorkflowState,
      data: JSON.parse(r.data as string) as Record<string, unknown>,
    }));
  }
}

function migrate(db: Database.Database, path: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new FaultlineError(
      'store-schema',
      `Store ${path} has schema version ${version}; this faultline understands up to ${SCHEMA_VERSION}. Upgrade faultline to open it.`,
      { path, version, supported: SCHEMA_VERSION },
    );
  }
  db.transaction(() => {
    for (let v = version; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v] ?? '');
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  })();
}

function toRun(r: Row): RunRecord {
  return {
    id: r.id as string,
    state: r.state as WorkflowState,
    stopReason: (r.stop_reason ?? null) as StopReason | null,
    stopDetail: (r.stop_detail ?? null) as string | null,
    mode: r.mode as RunRecord['mode'],
    objective: r.objective as string,
    contract: JSON.parse(r.contract_json as string) as unknown,
    blueprint: JSON.parse(r.blueprint_json as string) as unknown,
    versions: {
      contract: r.contract_version as string,
      contractHash: r.contract_hash as string,
      blueprint: r.blueprint_version as string,
      blueprintHash: r.blueprint_hash as string,
      model: r.model_version as string,
      prompt: r.prompt_version as string,
      policy: r.policy_version as string,
      toolSchemasHash: r.tool_schemas_hash as string,
    },
    input: JSON.parse(r.input_json as string) as Record<string, unknown>,
    planVersion: r.plan_version as number,
    used: JSON.parse(r.used_json as string) as BudgetUse,
    lastSeq: r.last_seq as number,
    compensationOwed: r.compensation_owed === 1,
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
  };
}

function toAction(r: Row): ActionRecord {
  return {
    id: r.id as string,
    runId: r.run_id as string,
    operationId: r.operation_id as string,
    tool: r.tool as string,
    kind: r.kind as 'read' | 'write',
    args: JSON.parse(r.args_json as string) as Record<string, unknown>,
    idempotencyKey: (r.idempotency_key ?? null) as string | null,
    status: r.status as ActionRecord['status'],
    attempts: r.attempts as number,
    result: parse<unknown>(r.result_json, null),
    errorClass: (r.error_class ?? null) as string | null,
    origin: r.origin as ActionRecord['origin'],
    approvalId: (r.approval_id ?? null) as string | null,
    compensates: (r.compensates ?? null) as string | null,
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
  };
}
