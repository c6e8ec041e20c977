import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import { FaultlineError } from './errors.js';
import { assertTransition, holdsStopReason, type WorkflowState } from './states.js';
import { MIGRATIONS, SCHEMA_VERSION } from './store-schema.js';
import { isFrozenParsed } from './validate.js';
import type {
  WrittenPlan,
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

/**
 * How a store file is held, for a caller that knows what it needs. The defaults are the
 * runtime's contract: every commit survives a killed process, and a power loss can drop the
 * last commits but never the file's consistency.
 *
 * @example
 * ```ts
 * // A test harness's store of one run, which it can make again after a power loss.
 * const store = RunStore.open('stores/run-1.db', { sync: 'off', exclusive: true });
 * ```
 */
export interface FileStoreOptions {
  /**
   * `normal` (default): SQLite's `synchronous=NORMAL` — the WAL is synced before each
   * checkpoint, the file after it. `off`: never synced — a commit still survives a killed
   * process (it is in the operating system's cache when `commit` returns), but a power loss or
   * an operating-system crash can corrupt the file. Each sync costs milliseconds on an ordinary
   * disk, and a store pays three for every open and close.
   */
  sync?: 'normal' | 'off';
  /**
   * Holds the file's lock from open to close (`locking_mode=EXCLUSIVE`): no other connection
   * can read the store meanwhile, and SQLite keeps the WAL index in memory instead of making,
   * mapping and deleting a `-shm` file. Default false.
   */
  exclusive?: boolean;
}

/**
 * Connections of closed in-memory stores that started empty, emptied again, kept with the
 * statements prepared on them: opening a store costs a connection, loading the schema and
 * preparing every statement again, a tenth of an explored run.
 */
const spareConnections: Database.Database[] = [];
const SPARE_CONNECTIONS = 4;

export type NewRun = Omit<
  RunRecord,
  | 'lastSeq'
  | 'updatedAt'
  | 'planVersion'
  | 'state'
  | 'stopReason'
  | 'stopDetail'
  | 'compensationOwed'
>;

/** The event written with a change: everything but run id, sequence and states, which the store fills. */
export type EventInput = Partial<
  Omit<EventRecord, 'runId' | 'seq' | 'fromState' | 'toState' | 'at' | 'budgetDelta'>
> & {
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
  /** A new plan version; `written`: the plan itself, when the planner wrote it as data. */
  plan?: { reason: string; operations: string[]; written?: WrittenPlan };
  checkpoint?: { boundary: CheckpointBoundary; data: Record<string, unknown> };
  used?: Partial<BudgetUse>;
  compensationOwed?: boolean;
}

/**
 * Texts of values that can never change (`isFrozenParsed`: a scenario's contract and blueprint,
 * written with every run of it), and whether the text parses back to an equal value.
 */
const frozenTexts = new WeakMap<object, { text: string; roundTrips: boolean }>();
/** Those values by their text, when it parses back to an equal value: what reading it gives. */
const frozenByText = new Map<string, unknown>();
const FROZEN_BY_TEXT = 256;

/**
 * `JSON.stringify(value)`, taken once for a value that can never change. A blueprint is tens of
 * kilobytes, and every run of a scenario writes the same one.
 */
function frozenJson(value: unknown): string {
  if (!isFrozenParsed(value)) return JSON.stringify(value);
  let known = frozenTexts.get(value);
  if (known === undefined) {
    const text = JSON.stringify(value);
    // Undefined members and -0 do not survive JSON: such a value is never read back as itself.
    known = { text, roundTrips: isDeepStrictEqual(JSON.parse(text), value) };
    frozenTexts.set(value, known);
  }
  if (known.roundTrips && !frozenByText.has(known.text)) {
    if (frozenByText.size >= FROZEN_BY_TEXT) frozenByText.clear();
    frozenByText.set(known.text, value);
  }
  return known.text;
}

/**
 * `JSON.parse(text)`, or the unchangeable value written as this very text (see
 * {@link frozenJson}), which is equal to it: a run resumed in the process that started it reads
 * its contract and blueprint back without parsing them, and the runtime's checks of a frozen
 * value (its schema, its hash) are already made.
 */
function fromFrozenJson(text: string): unknown {
  return frozenByText.get(text) ?? (JSON.parse(text) as unknown);
}

const json = (v: unknown): string | null =>
  v === undefined || v === null ? null : JSON.stringify(v);
const parse = <T>(v: unknown, fallback: T): T =>
  typeof v === 'string' ? (JSON.parse(v) as T) : fallback;

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
  private readonly statements: Statements;
  private closed = false;

  private constructor(
    private readonly connection: Database.Database,
    readonly path: string,
    /** An in-memory store that started empty: it keeps its work in one outer transaction. */
    private readonly reusable = false,
  ) {
    this.commitTx = connection.transaction((runId: string, change: Change) =>
      this.applyChange(runId, change),
    );
    this.statements = statementsFor(connection);
  }

  /** A closed store is never used again: its in-memory connection may serve another store. */
  private ensureOpen(): void {
    if (this.closed) throw new TypeError(`The store ${this.path} is closed`);
  }

  private get db(): Database.Database {
    this.ensureOpen();
    return this.connection;
  }

  private get stmts(): Statements['stmts'] {
    this.ensureOpen();
    return this.statements.stmts;
  }

  private get reads(): Statements['reads'] {
    this.ensureOpen();
    return this.statements.reads;
  }

  /**
   * Opens (creating or migrating) a store file; `':memory:'` for a throwaway one. `options`
   * trade durability the caller does not need for speed (see {@link FileStoreOptions}).
   */
  static open(path: string, options: FileStoreOptions = {}): RunStore {
    if (path !== ':memory:' && path !== '') seedNewStore(path);
    return RunStore.prepare(new Database(path), path, false, false, options);
  }

  /**
   * Opens a store held in memory, empty or from an `image` that {@link serialize} took: the
   * same schema, transactions and checks as a file, without the disk. Exploration keeps each
   * run's image between incarnations, so a crash loses exactly what a killed process would —
   * nothing committed. A store that started empty gives its connection, emptied, with its
   * statements prepared, to the next one when it is closed.
   *
   * @example
   * ```ts
   * const store = RunStore.openInMemory();
   * const image = store.serialize();
   * store.close();
   * const again = RunStore.openInMemory(image, 'run-1.db');
   * ```
   */
  static openInMemory(image?: Buffer, label = ':memory:'): RunStore {
    if (image) return RunStore.prepare(new Database(image), label, true);
    const spare = spareConnections.pop();
    if (spare) return new RunStore(spare, label, true);
    // A plain in-memory database (one opened from an image would serialize without the open
    // transaction's pages). Its work goes into one outer transaction, never committed: each
    // change is a savepoint in it (what `serialize` takes is what the changes released), and
    // closing rolls it all back, which leaves the connection empty for the next store.
    const store = RunStore.prepare(new Database(':memory:'), label, true, true);
    store.connection.exec('BEGIN');
    return store;
  }

  private static prepare(
    db: Database.Database,
    path: string,
    inMemory = false,
    reusable = false,
    options: FileStoreOptions = {},
  ): RunStore {
    try {
      // A journal mode and a sync level mean nothing without a file.
      if (!inMemory) {
        // Before the first read: a WAL store locked exclusively keeps its index in this
        // process's memory and never makes the `-shm` file.
        if (options.exclusive === true) db.pragma('locking_mode = EXCLUSIVE');
        db.pragma('journal_mode = WAL');
        db.pragma(options.sync === 'off' ? 'synchronous = OFF' : 'synchronous = NORMAL');
      }
      db.pragma('foreign_keys = ON');
      migrate(db, path);
      return new RunStore(db, path, reusable);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Every committed byte of the store, for {@link openInMemory}. */
  serialize(): Buffer {
    return this.db.serialize();
  }

  /**
   * Every committed byte of the store as a WAL store file holds them, for a caller that
   * writes the file itself: what {@link serialize} takes, with the header's file-format bytes
   * saying WAL, so the first {@link open} of the file reads it without rewriting its header
   * to change journal mode (a write that waits behind the disk's queue on a busy machine).
   */
  serializeAsFile(): Buffer {
    return withJournalMode(this.db.serialize(), 'wal');
  }

  get isOpen(): boolean {
    return !this.closed && this.connection.open;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const db = this.connection;
    if (!db.open) return;
    if (this.reusable && db.inTransaction && spareConnections.length < SPARE_CONNECTIONS) {
      db.exec('ROLLBACK');
      db.exec('BEGIN');
      spareConnections.push(db);
      return;
    }
    db.close();
  }

  /**
   * Creates a run in state `created` with its first event, in one transaction, and returns it
   * as {@link getRun} would read it back — without reading a long blueprint back. Its contract
   * and blueprint are the values given.
   */
  createRun(run: NewRun, event: EventInput): RunRecord {
    const inputJson = JSON.stringify(run.input);
    this.db.transaction(() => {
      this.stmts.insertRun.run(
        run.id,
        run.mode,
        run.objective,
        frozenJson(run.contract),
        run.versions.contract,
        run.versions.contractHash,
        frozenJson(run.blueprint),
        run.versions.blueprint,
        run.versions.blueprintHash,
        run.versions.model,
        run.versions.prompt,
        run.versions.policy,
        run.versions.toolSchemasHash,
        inputJson,
        run.createdAt,
      );
      this.stmts.insertRunState.run(run.id);
      this.stmts.insertEvent.run(
        run.id,
        1,
        run.createdAt,
        event.type,
        null,
        'created',
        event.reason ?? null,
        ...Array<null>(16).fill(null),
        event.order ?? null,
      );
    })();
    this.heads.set(run.id, { state: 'created', seq: 1, planVersion: 0 });
    return {
      id: run.id,
      state: 'created',
      stopReason: null,
      stopDetail: null,
      mode: run.mode,
      objective: run.objective,
      contract: run.contract,
      blueprint: run.blueprint,
      versions: { ...run.versions },
      input: JSON.parse(inputJson) as Record<string, unknown>,
      planVersion: 0,
      used: { toolCalls: 0, retries: 0, externalWrites: 0, costUsd: 0 },
      lastSeq: 1,
      compensationOwed: false,
      createdAt: run.createdAt,
      updatedAt: run.createdAt,
    };
  }

  /**
   * Commits one change in one transaction and returns the event's sequence number. Throws
   * `illegal-transition` (writing nothing) when `change.to` is not reachable from the run's state.
   */
  commit(runId: string, change: Change): number {
    // A change that writes its event row alone (most of a run's: an intent, an outcome) is one
    // statement, which SQLite applies atomically by itself: no BEGIN and COMMIT around it, and
    // in a store whose work stays in one outer transaction no savepoint either (a statement
    // that fails is undone alone, leaving the outer transaction as it was). Only once this
    // instance knows the run's head (nothing is read before the write).
    const head =
      changesEventsOnly(change) && this.heads.has(runId)
        ? this.applyChange(runId, change)
        : this.commitTx(runId, change);
    // Only once the transaction committed: a rolled-back change leaves the cache as it was.
    this.heads.set(runId, head);
    return head.seq;
  }

  /** The state, last sequence and plan version of each run this instance has written. */
  private readonly heads = new Map<string, Head>();

  private head(runId: string): Head {
    const cached = this.heads.get(runId);
    if (cached) return cached;
    const row = this.stmts.runState.get(runId) as
      { state: WorkflowState; plan_version: number } | undefined;
    if (row === undefined)
      throw new FaultlineError('not-found', `No run "${runId}" in ${this.path}`, { runId });
    return {
      state: row.state,
      seq: this.stmts.lastSeq.get(runId) as number,
      planVersion: row.plan_version,
    };
  }

  private readonly commitTx: (runId: string, change: Change) => Head;

  private applyChange(runId: string, change: Change): Head {
    const head = this.head(runId);
    const from = head.state;
    const to = change.to ?? from;
    if (change.to !== undefined) assertTransition(from, change.to);
    checkOwner(runId, change.action);
    checkOwner(runId, change.approval);
    if (change.evidence) for (const e of change.evidence) checkOwner(runId, e);
    const seq = head.seq + 1;
    if (!changesEventsOnly(change)) {
      // A run that is no longer stopped keeps no stop reason; one stopped again gets the new one.
      const clearStop = !change.stop && change.to !== undefined && !holdsStopReason(change.to);
      this.stmts.updateRun.run(
        to,
        clearStop ? 1 : 0,
        change.stop?.reason ?? null,
        clearStop ? 1 : 0,
        change.stop?.detail ?? null,
        change.plan ? 1 : 0,
        change.compensationOwed === undefined ? null : change.compensationOwed ? 1 : 0,
        runId,
      );
    }
    const e = change.event;
    this.stmts.insertEvent.run(
      runId,
      seq,
      change.at,
      e.type,
      change.to === undefined ? null : from,
      change.to ?? null,
      e.reason ?? null,
      e.operationId ?? null,
      e.actionId ?? null,
      e.inputRefs?.length ? JSON.stringify(e.inputRefs) : null,
      e.evidenceRefs?.length ? JSON.stringify(e.evidenceRefs) : null,
      e.policyRule ?? null,
      e.requestId ?? null,
      e.idempotencyKey ?? null,
      e.resultClass ?? null,
      // The event's budget delta is the change's budget use: the run's totals are their sum.
      json(change.used),
      e.operatorAction ?? null,
      json(e.data),
      json(change.action),
      change.evidence?.length ? JSON.stringify(change.evidence) : null,
      json(change.approval),
      change.checkpoint
        ? JSON.stringify({
            boundary: change.checkpoint.boundary,
            state: to,
            data: change.checkpoint.data,
          })
        : null,
      change.plan
        ? JSON.stringify({
            version: head.planVersion + 1,
            reason: change.plan.reason,
            operations: change.plan.operations,
            ...(change.plan.written ? { written: change.plan.written } : {}),
          })
        : null,
      e.order ?? null,
    );
    return { state: to, seq, planVersion: head.planVersion + (change.plan ? 1 : 0) };
  }

  /** Whether the store holds a run with this id (cheaper than {@link getRun}). */
  hasRun(runId: string): boolean {
    return this.heads.has(runId) || this.stmts.hasRun.get(runId) !== undefined;
  }

  getRun(runId: string): RunRecord | undefined {
    const r = this.stmts.run.get(runId) as Row | undefined;
    return r ? toRun(r) : undefined;
  }

  /**
   * The versions a run was bound to ({@link getRun}'s `versions`), without reading its contract,
   * blueprint and budget use: what a harness reads once a run is over.
   */
  runVersions(runId: string): RunRecord['versions'] | undefined {
    const r = this.stmts.versions.get(runId) as Row | undefined;
    return r ? toVersions(r) : undefined;
  }

  listRuns(): RunRecord[] {
    return (this.db.prepare(`${RUN_SELECT} ORDER BY runs.created_at, runs.id`).all() as Row[]).map(
      toRun,
    );
  }

  events(runId: string): EventRecord[] {
    return (this.reads.events.all(runId) as Row[]).map(toEvent);
  }

  /**
   * A finished run's journal read back whole, in one pass over its rows: what {@link events},
   * {@link actions}, {@link checkpoints} and {@link evidence} each return, from one query
   * instead of four (each of which read the same rows' JSON texts again).
   */
  history(runId: string): {
    events: EventRecord[];
    actions: ActionRecord[];
    checkpoints: CheckpointRecord[];
    evidence: EvidenceRecord[];
  } {
    const events: EventRecord[] = [];
    const latest = new Map<string, ActionRecord>();
    const checkpoints: CheckpointRecord[] = [];
    const evidence: EvidenceRecord[] = [];
    for (const values of this.reads.history.all(runId) as unknown[][]) {
      const r = historyRow(values);
      events.push(toEvent(r));
      if (typeof r.action_json === 'string') {
        const a = JSON.parse(r.action_json) as ActionRecord;
        latest.set(a.operationId, a);
      }
      if (typeof r.checkpoint_json === 'string')
        checkpoints.push(toCheckpoint(runId, r.seq as number, r.at as number, r.checkpoint_json));
      if (typeof r.evidence_json === 'string')
        for (const e of JSON.parse(r.evidence_json) as EvidenceRecord[]) evidence.push(e);
    }
    return { events, actions: [...latest.values()], checkpoints, evidence };
  }

  /** The latest version of each action, in the order the actions were first recorded. */
  actions(runId: string): ActionRecord[] {
    // One pass: a Map keeps the order its keys were first set in, which is the order each
    // operation's action was first recorded, and set() on a known key keeps that place.
    const latest = new Map<string, ActionRecord>();
    for (const r of this.reads.action.all(runId) as RecordRow[]) {
      const a = JSON.parse(r.record) as ActionRecord;
      latest.set(a.operationId, a);
    }
    return [...latest.values()];
  }

  /** The latest version of one action, by its id. */
  action(actionId: string): ActionRecord | undefined {
    const row = this.db
      .prepare(
        `SELECT action_json FROM events WHERE json_extract(action_json, '$.id') = ? ORDER BY seq DESC LIMIT 1`,
      )
      .pluck()
      .get(actionId) as string | undefined;
    return row === undefined ? undefined : (JSON.parse(row) as ActionRecord);
  }

  evidence(runId: string): EvidenceRecord[] {
    return (this.reads.evidence.all(runId) as RecordRow[]).flatMap(
      (r) => JSON.parse(r.record) as EvidenceRecord[],
    );
  }

  /** The latest version of each approval, in the order they were requested. */
  approvals(runId: string): ApprovalRecord[] {
    const latest = new Map<string, ApprovalRecord>();
    for (const r of this.reads.approval.all(runId) as RecordRow[]) {
      const a = JSON.parse(r.record) as ApprovalRecord;
      latest.set(a.id, a);
    }
    return [...latest.values()];
  }

  plans(runId: string): PlanRecord[] {
    return (this.reads.plan.all(runId) as RecordRow[]).map((r) => {
      const p = JSON.parse(r.record) as {
        version: number;
        reason: string;
        operations: string[];
        written?: WrittenPlan;
      };
      return {
        runId,
        version: p.version,
        at: r.at,
        reason: p.reason,
        operations: p.operations,
        ...(p.written ? { written: p.written } : {}),
      };
    });
  }

  checkpoints(runId: string): CheckpointRecord[] {
    return (this.reads.checkpoint.all(runId) as RecordRow[]).map((r) =>
      toCheckpoint(runId, r.seq, r.at, r.record),
    );
  }
}

/** The statements of one connection, prepared the first time each is used, kept with it. */
interface Statements {
  readonly stmts: Record<
    | 'runState'
    | 'hasRun'
    | 'run'
    | 'versions'
    | 'insertRun'
    | 'insertRunState'
    | 'lastSeq'
    | 'updateRun'
    | 'insertEvent',
    Database.Statement
  >;
  readonly reads: Record<
    'events' | 'history' | 'action' | 'evidence' | 'approval' | 'checkpoint' | 'plan',
    Database.Statement
  >;
}

const preparedOn = new WeakMap<Database.Database, Statements>();

function statementsFor(db: Database.Database): Statements {
  const known = preparedOn.get(db);
  if (known) return known;
  const recordsOf = (column: string) => () =>
    db.prepare(
      `SELECT seq, at, ${column} AS record FROM events WHERE run_id = ? AND ${column} IS NOT NULL ORDER BY seq`,
    );
  const made: Statements = {
    stmts: lazyStatements({
      runState: () => db.prepare('SELECT state, plan_version FROM run_state WHERE run_id = ?'),
      hasRun: () => db.prepare('SELECT 1 FROM runs WHERE id = ?').pluck(),
      run: () => db.prepare(`${RUN_SELECT} WHERE runs.id = ?`),
      versions: () =>
        db.prepare(
          `SELECT contract_version, contract_hash, blueprint_version, blueprint_hash, model_version,
             prompt_version, policy_version, tool_schemas_hash FROM runs WHERE id = ?`,
        ),
      insertRun: () =>
        db.prepare(
          `INSERT INTO runs (id, mode, objective, contract_json, contract_version, contract_hash,
             blueprint_json, blueprint_version, blueprint_hash, model_version, prompt_version, policy_version,
             tool_schemas_hash, input_json, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ),
      insertRunState: () =>
        db.prepare(`INSERT INTO run_state (run_id, state) VALUES (?, 'created')`),
      lastSeq: () => db.prepare('SELECT MAX(seq) FROM events WHERE run_id = ?').pluck(),
      updateRun: () =>
        db.prepare(
          `UPDATE run_state SET state = ?,
           stop_reason = CASE WHEN ? THEN NULL ELSE COALESCE(?, stop_reason) END,
           stop_detail = CASE WHEN ? THEN NULL ELSE COALESCE(?, stop_detail) END,
           plan_version = plan_version + ?, compensation_owed = COALESCE(?, compensation_owed)
         WHERE run_id = ?`,
        ),
      insertEvent: () =>
        db.prepare(
          `INSERT INTO events (run_id, seq, at, type, from_state, to_state, reason, operation_id, action_id,
           input_refs, evidence_refs, policy_rule, request_id, idempotency_key, result_class, budget_delta,
           operator_action, data, action_json, evidence_json, approval_json, checkpoint_json, plan_json, ord)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ),
    }),
    reads: lazyStatements({
      events: () => db.prepare('SELECT * FROM events WHERE run_id = ? ORDER BY seq'),
      // Rows as arrays: better-sqlite3 makes an object per row key by key, which cost about as
      // much as the query itself (24 columns); the few columns history reads are named here.
      history: () =>
        db
          .prepare(`SELECT ${HISTORY_COLUMNS.join(', ')} FROM events WHERE run_id = ? ORDER BY seq`)
          .raw(),
      action: recordsOf('action_json'),
      evidence: recordsOf('evidence_json'),
      approval: recordsOf('approval_json'),
      checkpoint: recordsOf('checkpoint_json'),
      plan: recordsOf('plan_json'),
    }),
  };
  preparedOn.set(db, made);
  return made;
}

/** Whether a change writes nothing but its event row (no transition, stop, plan or compensation flag). */
function changesEventsOnly(change: Change): boolean {
  return (
    change.to === undefined &&
    change.stop === undefined &&
    change.plan === undefined &&
    change.compensationOwed === undefined
  );
}

function checkOwner(runId: string, record: { runId: string } | undefined): void {
  if (record && record.runId !== runId) {
    throw new FaultlineError(
      'invalid-input',
      `A record of run "${record.runId}" cannot be committed to run "${runId}"`,
      { runId },
    );
  }
}

/**
 * Statements prepared the first time each is used: a store opened to read a few records back
 * never pays for the statements that write.
 */
function lazyStatements<K extends string>(
  make: Record<K, () => Database.Statement>,
): Record<K, Database.Statement> {
  const statements = {} as Record<K, Database.Statement>;
  for (const [name, prepare] of Object.entries(make) as [K, () => Database.Statement][]) {
    let statement: Database.Statement | undefined;
    Object.defineProperty(statements, name, { get: () => (statement ??= prepare()) });
  }
  return statements;
}

interface Head {
  state: WorkflowState;
  seq: number;
  planVersion: number;
}

interface RecordRow {
  seq: number;
  at: number;
  record: string;
}

/**
 * A run with its state; sequence, last update and budget use are derived from the events.
 */
const RUN_SELECT = `
  SELECT runs.*, run_state.*,
    (SELECT MAX(seq) FROM events e WHERE e.run_id = runs.id) AS last_seq,
    (SELECT at FROM events e WHERE e.run_id = runs.id ORDER BY seq DESC LIMIT 1) AS updated_at,
    (SELECT json_object(
       'toolCalls', COALESCE(SUM(json_extract(budget_delta, '$.toolCalls')), 0),
       'retries', COALESCE(SUM(json_extract(budget_delta, '$.retries')), 0),
       'externalWrites', COALESCE(SUM(json_extract(budget_delta, '$.externalWrites')), 0),
       'costUsd', COALESCE(SUM(json_extract(budget_delta, '$.costUsd')), 0))
     FROM events e WHERE e.run_id = runs.id AND budget_delta IS NOT NULL) AS used_json
  FROM runs JOIN run_state ON run_state.run_id = runs.id`;

/**
 * The bytes of a new store file, schema made and WAL mode set, built once per process: a run
 * in `faultline run` opens a new file store, and making the schema there (every table, index
 * and trigger in one transaction, then the WAL checkpoint on close) cost more than the run.
 */
let newStoreImage: Buffer | undefined;

/**
 * Writes the image of a new store at `path` when nothing is there yet; anything there (or no
 * folder for it) is left to SQLite, which opens, migrates or refuses it as before.
 */
function seedNewStore(path: string): void {
  if (buildingImage) return;
  try {
    newStoreImage ??= buildNewStoreImage();
    writeFileSync(path, newStoreImage, { flag: 'wx' });
  } catch {
    // An existing file, a missing folder, an unwritable place: SQLite says what it makes of it.
  }
}

let buildingImage = false;

function buildNewStoreImage(): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-store-image-'));
  buildingImage = true;
  try {
    const file = join(dir, 'new.db');
    RunStore.open(file).close();
    return readFileSync(file);
  } finally {
    buildingImage = false;
    rmSync(dir, { recursive: true, force: true });
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
  if (version === SCHEMA_VERSION) return;
  db.transaction(() => {
    for (let v = version; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v] ?? '');
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  })();
}

/**
 * `image` (a store's bytes, changed in place) with its header saying the journal mode a file
 * of it opens in: SQLite's file-format bytes 18 and 19 (write and read versions) are 2 for WAL,
 * 1 for a rollback journal. {@link RunStore.serialize} gives an image saying rollback journal;
 * a WAL store file opens without its header being rewritten, and an image read in memory must
 * say rollback journal (memory has no shared-memory index for WAL).
 *
 * @example
 * ```ts
 * writeFileSync('run.db', withJournalMode(Buffer.from(image), 'wal'));
 * ```
 */
export function withJournalMode(image: Buffer, mode: 'wal' | 'rollback'): Buffer {
  if (image.length >= 100) image.fill(mode === 'wal' ? 2 : 1, 18, 20);
  return image;
}

/** The columns {@link RunStore.history} reads, in the order {@link historyRow} takes them. */
const HISTORY_COLUMNS = [
  'run_id',
  'seq',
  'at',
  'ord',
  'type',
  'from_state',
  'to_state',
  'reason',
  'operation_id',
  'action_id',
  'input_refs',
  'evidence_refs',
  'policy_rule',
  'request_id',
  'idempotency_key',
  'result_class',
  'budget_delta',
  'operator_action',
  'data',
  'action_json',
  'checkpoint_json',
  'evidence_json',
] as const;

/** A row of {@link HISTORY_COLUMNS} as the named row {@link toEvent} reads. */
function historyRow(v: readonly unknown[]): Row {
  return {
    run_id: v[0],
    seq: v[1],
    at: v[2],
    ord: v[3],
    type: v[4],
    from_state: v[5],
    to_state: v[6],
    reason: v[7],
    operation_id: v[8],
    action_id: v[9],
    input_refs: v[10],
    evidence_refs: v[11],
    policy_rule: v[12],
    request_id: v[13],
    idempotency_key: v[14],
    result_class: v[15],
    budget_delta: v[16],
    operator_action: v[17],
    data: v[18],
    action_json: v[19],
    checkpoint_json: v[20],
    evidence_json: v[21],
  };
}

function toEvent(r: Row): EventRecord {
  return {
    runId: r.run_id as string,
    seq: r.seq as number,
    at: r.at as number,
    ...(typeof r.ord === 'number' ? { order: r.ord } : {}),
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
  };
}

function toCheckpoint(runId: string, seq: number, at: number, text: string): CheckpointRecord {
  const c = JSON.parse(text) as {
    boundary: CheckpointBoundary;
    state: WorkflowState;
    data: Record<string, unknown>;
  };
  return { runId, seq, at, boundary: c.boundary, state: c.state, data: c.data };
}

function toRun(r: Row): RunRecord {
  return {
    id: r.id as string,
    state: r.state as WorkflowState,
    stopReason: (r.stop_reason ?? null) as StopReason | null,
    stopDetail: (r.stop_detail ?? null) as string | null,
    mode: r.mode as RunRecord['mode'],
    objective: r.objective as string,
    contract: fromFrozenJson(r.contract_json as string),
    blueprint: fromFrozenJson(r.blueprint_json as string),
    versions: toVersions(r),
    input: JSON.parse(r.input_json as string) as Record<string, unknown>,
    planVersion: r.plan_version as number,
    used: JSON.parse(r.used_json as string) as BudgetUse,
    lastSeq: r.last_seq as number,
    compensationOwed: r.compensation_owed === 1,
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
  };
}

function toVersions(r: Row): RunRecord['versions'] {
  return {
    contract: r.contract_version as string,
    contractHash: r.contract_hash as string,
    blueprint: r.blueprint_version as string,
    blueprintHash: r.blueprint_hash as string,
    model: r.model_version as string,
    prompt: r.prompt_version as string,
    policy: r.policy_version as string,
    toolSchemasHash: r.tool_schemas_hash as string,
  };
}
