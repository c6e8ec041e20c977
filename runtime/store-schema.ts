/**
 * The store's schema as an ordered list of migrations; `PRAGMA user_version` records how many
 * have run. Append new migrations, never edit old ones: a store written by an older faultline
 * is upgraded in place, and one written by a newer faultline is refused.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    stop_reason TEXT,
    stop_detail TEXT,
    mode TEXT NOT NULL,
    objective TEXT NOT NULL,
    contract_json TEXT NOT NULL,
    contract_version TEXT NOT NULL,
    contract_hash TEXT NOT NULL,
    blueprint_json TEXT NOT NULL,
    blueprint_version TEXT NOT NULL,
    blueprint_hash TEXT NOT NULL,
    model_version TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    policy_version TEXT NOT NULL,
    tool_schemas_hash TEXT NOT NULL,
    input_json TEXT NOT NULL,
    plan_version INTEGER NOT NULL DEFAULT 0,
    used_json TEXT NOT NULL,
    last_seq INTEGER NOT NULL DEFAULT 0,
    compensation_owed INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE events (
    run_id TEXT NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    at INTEGER NOT NULL,
    type TEXT NOT NULL,
    from_state TEXT,
    to_state TEXT,
    reason TEXT,
    operation_id TEXT,
    action_id TEXT,
    input_refs TEXT,
    evidence_refs TEXT,
    policy_rule TEXT,
    request_id TEXT,
    idempotency_key TEXT,
    result_class TEXT,
    budget_delta TEXT,
    operator_action TEXT,
    data TEXT,
    PRIMARY KEY (run_id, seq)
  ) WITHOUT ROWID;
  CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
  CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
  CREATE TABLE checkpoints (
    run_id TEXT NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    at INTEGER NOT NULL,
    boundary TEXT NOT NULL,
    state TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
  ) WITHOUT ROWID;
  CREATE TABLE actions (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),
    operation_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    kind TEXT NOT NULL,
    args_json TEXT NOT NULL,
    idempotency_key TEXT,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    result_json TEXT,
    error_class TEXT,
    origin TEXT NOT NULL,
    approval_id TEXT,
    compensates TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (run_id, operation_id)
  );
  CREATE TABLE plans (
    run_id TEXT NOT NULL REFERENCES runs(id),
    version INTEGER NOT NULL,
    at INTEGER NOT NULL,
    reason TEXT NOT NULL,
    operations_json TEXT NOT NULL,
    PRIMARY KEY (run_id, version)
  ) WITHOUT ROWID;
  CREATE TABLE evidence (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),
    at INTEGER NOT NULL,
    operation_id TEXT,
    tool TEXT NOT NULL,
    request_id TEXT,
    trust TEXT NOT NULL,
    content_json TEXT NOT NULL
  );
  CREATE INDEX evidence_by_run ON evidence(run_id, at);
  CREATE TABLE approvals (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),
    action_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    status TEXT NOT NULL,
    approver TEXT,
    reason TEXT,
    requested_at INTEGER NOT NULL,
    decided_at INTEGER,
    consumed_at INTEGER,
    scope_json TEXT NOT NULL,
    preview_json TEXT NOT NULL,
    evidence_refs TEXT NOT NULL,
    token TEXT
  );
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
