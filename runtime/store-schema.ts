/**
 * The store's schema as an ordered list of migrations; `PRAGMA user_version` records how many
 * have run. Append new migrations, never edit old ones: a store written by an older faultline
 * is upgraded in place, and one written by a newer faultline is refused.
 */
export const MIGRATIONS: readonly string[] = [
  `
  -- What a run is: written once. Kept apart from run_state so that the many small state
  -- commits never rewrite the contract and blueprint (a long blueprint is tens of kilobytes).
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
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
    created_at INTEGER NOT NULL
  );
  -- Where a run is. Changed only by transitions, stops, replans and compensation; the
  -- sequence, budget use and last update are read from the events, so the common commit
  -- (an event and the records it explains) touches as few pages as possible.
  CREATE TABLE run_state (
    run_id TEXT PRIMARY KEY REFERENCES runs(id),
    state TEXT NOT NULL,
    stop_reason TEXT,
    stop_detail TEXT,
    plan_version INTEGER NOT NULL DEFAULT 0,
    compensation_owed INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  -- The journal: one row per state change, append-only. Besides the event itself, a row
  -- carries the new version of each record the change writes (action, evidence, approval,
  -- checkpoint, plan), so a commit appends one row and touches one page; the record tables
  -- below are views over it, and a run can be rebuilt from this table alone.
  CREATE TABLE events (
    id INTEGER PRIMARY KEY,
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
    action_json TEXT,
    evidence_json TEXT,
    approval_json TEXT,
    checkpoint_json TEXT,
    plan_json TEXT
  );
  -- Deliberately no index on (run_id, seq): an index doubles the pages an append dirties (about
  -- 30 µs a commit here), while per-run reads happen only when a run is loaded or graded.
  -- faultline keeps one store file per run; a single writer per run assigns seq.
  CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
  CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

  -- Action records: the latest version of each run's action per operation.
  CREATE VIEW actions AS
    SELECT run_id, operation_id, seq AS updated_seq, json_extract(action_json, '$.status') AS status,
           json_extract(action_json, '$.tool') AS tool, json_extract(action_json, '$.idempotencyKey') AS idempotency_key,
           action_json
    FROM (SELECT run_id, seq, action_json, json_extract(action_json, '$.operationId') AS operation_id,
                 ROW_NUMBER() OVER (PARTITION BY run_id, json_extract(action_json, '$.operationId') ORDER BY seq DESC) AS newest
          FROM events WHERE action_json IS NOT NULL)
    WHERE newest = 1;
  CREATE VIEW evidence AS
    SELECT e.run_id, e.seq, json_extract(item.value, '$.id') AS id, json_extract(item.value, '$.tool') AS tool,
           json_extract(item.value, '$.trust') AS trust, item.value AS evidence_json
    FROM events e, json_each(e.evidence_json) item WHERE e.evidence_json IS NOT NULL;
  CREATE VIEW checkpoints AS
    SELECT run_id, seq, at, json_extract(checkpoint_json, '$.boundary') AS boundary, checkpoint_json
    FROM events WHERE checkpoint_json IS NOT NULL;
  CREATE VIEW approvals AS
    SELECT run_id, approval_id, json_extract(approval_json, '$.status') AS status, approval_json
    FROM (SELECT run_id, seq, approval_json, json_extract(approval_json, '$.id') AS approval_id,
                 ROW_NUMBER() OVER (PARTITION BY run_id, json_extract(approval_json, '$.id') ORDER BY seq DESC) AS newest
          FROM events WHERE approval_json IS NOT NULL)
    WHERE newest = 1;
  CREATE VIEW plans AS
    SELECT run_id, seq, at, json_extract(plan_json, '$.version') AS version, json_extract(plan_json, '$.reason') AS reason, plan_json
    FROM events WHERE plan_json IS NOT NULL;
  `,
  `
  -- The clock's event order of each event, where the clock has one (Clock.sequence): events
  -- and the world's calls in one millisecond are then in one order.
  ALTER TABLE events ADD COLUMN ord INTEGER;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
