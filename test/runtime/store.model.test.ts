import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FaultlineError } from '../../runtime/errors.js';
import type {
  ActionRecord,
  ActionStatus,
  ApprovalRecord,
  ApprovalStatus,
} from '../../runtime/records.js';
import { isLegalTransition, WORKFLOW_STATES, type WorkflowState } from '../../runtime/states.js';
import { RunStore } from '../../runtime/store.js';
import { newRun } from '../support/store-fixtures.js';

/**
 * Model-based test of the store and the state machine: fast-check draws sequences of commands
 * (start a run, move it, act, crash and reopen, cancel, ask for and answer approvals, replan,
 * spend budget) and after every one the store must agree with a small model of what it holds.
 */

interface RunModel {
  state: WorkflowState;
  seq: number;
  planVersion: number;
  stopReason: string | null;
  toolCalls: number;
  retries: number;
  actions: Map<string, ActionStatus>;
  approvals: Map<string, ApprovalStatus>;
  checkpoints: number;
}

interface Model {
  runs: Map<string, RunModel>;
  clock: number;
}

interface Real {
  store: RunStore;
  /** A crash and a restart: the store is dropped and opened again from what it committed. */
  crash(): void;
}

const RUN_IDS = ['run-a', 'run-b', 'run-c'] as const;
const OPERATIONS = ['order', 'refund', 'notify'] as const;

/** The action lifecycle: intended → sent → confirmed | ambiguous → reconciled | failed | compensated. */
const NEXT_STATUS: Readonly<Record<string, readonly ActionStatus[]>> = {
  none: ['intended', 'skipped', 'proposed'],
  intended: ['sent', 'ambiguous', 'failed'],
  sent: ['confirmed', 'ambiguous', 'failed'],
  ambiguous: ['reconciled', 'failed'],
  confirmed: ['compensated'],
  reconciled: ['compensated'],
};
const NEXT_APPROVAL: Readonly<Record<string, readonly ApprovalStatus[]>> = {
  none: ['requested'],
  requested: ['granted', 'denied'],
  granted: ['consumed'],
};

const action = (runId: string, op: string, status: ActionStatus, at: number): ActionRecord => ({
  id: `${runId}:${op}`,
  runId,
  operationId: op,
  tool: op === 'order' ? 'get_order' : 'issue_refund',
  kind: op === 'order' ? 'read' : 'write',
  args: { order_id: 'ord_1' },
  idempotencyKey: op === 'order' ? null : `key-${runId}-${op}`,
  status,
  attempts: 1,
  result: null,
  errorClass: null,
  origin: 'blueprint',
  approvalId: null,
  compensates: null,
  createdAt: at,
  updatedAt: at,
});

const approval = (runId: string, status: ApprovalStatus, at: number): ApprovalRecord => ({
  id: `${runId}:approval`,
  runId,
  actionId: `${runId}:refund`,
  tool: 'issue_refund',
  status,
  approver: status === 'requested' ? null : 'ops-lead',
  reason: null,
  requestedAt: at,
  decidedAt: status === 'requested' ? null : at,
  consumedAt: status === 'consumed' ? at : null,
  scope: {},
  preview: {},
  evidenceRefs: [],
  token: status === 'granted' || status === 'consumed' ? 'tok' : null,
});

/** The store agrees with the model: every run's head, budgets, actions, approvals and journal. */
function agree(model: Model, real: Real): void {
  const { store } = real;
  expect(store.listRuns().map((r) => r.id)).toEqual([...model.runs.keys()]);
  for (const [id, m] of model.runs) {
    const run = store.getRun(id);
    expect(run, id).toBeDefined();
    expect({
      state: run?.state,
      lastSeq: run?.lastSeq,
      planVersion: run?.planVersion,
      stopReason: run?.stopReason,
      toolCalls: run?.used.toolCalls,
      retries: run?.used.retries,
    }).toEqual({
      state: m.state,
      lastSeq: m.seq,
      planVersion: m.planVersion,
      stopReason: m.stopReason,
      toolCalls: m.toolCalls,
      retries: m.retries,
    });
    expect(store.actions(id).map((a) => [a.operationId, a.status])).toEqual([...m.actions]);
    expect(store.approvals(id).map((a) => a.status)).toEqual([...m.approvals.values()]);
    expect(store.checkpoints(id)).toHaveLength(m.checkpoints);
    // The journal: one event per change, in sequence, its transitions chaining legally.
    const events = store.events(id);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: m.seq }, (_, i) => i + 1));
    let state: WorkflowState | null = null;
    for (const e of events) {
      if (e.toState === null) continue;
      expect(e.fromState).toBe(state);
      if (e.fromState !== null) expect(isLegalTransition(e.fromState, e.toState)).toBe(true);
      state = e.toState;
    }
    expect(state).toBe(m.state);
  }
}

/** A run of the model chosen by index, so commands stay valid as runs come and go. */
function pick(model: Model, index: number): [string, RunModel] | undefined {
  const runs = [...model.runs];
  return runs.length === 0 ? undefined : runs[index % runs.length];
}

type Cmd = fc.Command<Model, Real>;

class Start implements Cmd {
  constructor(readonly id: string) {}
  check = (m: Readonly<Model>): boolean => !m.runs.has(this.id);
  run(m: Model, r: Real): void {
    m.clock += 10;
    r.store.createRun(newRun(this.id, { createdAt: m.clock }), { type: 'run.created' });
    m.runs.set(this.id, {
      state: 'created',
      seq: 1,
      planVersion: 0,
      stopReason: null,
      toolCalls: 0,
      retries: 0,
      actions: new Map(),
      approvals: new Map(),
      checkpoints: 0,
    });
    agree(m, r);
  }
  toString = (): string => `start(${this.id})`;
}

/** Any transition at all: a legal one is committed, an illegal one throws and writes nothing. */
class Move implements Cmd {
  constructor(
    readonly run_: number,
    readonly to: WorkflowState,
  ) {}
  check = (m: Readonly<Model>): boolean => m.runs.size > 0;
  run(m: Model, r: Real): void {
    const [id, run] = pick(m, this.run_)!;
    m.clock += 10;
    const change = { at: m.clock, event: { type: `moved.${this.to}` }, to: this.to };
    if (isLegalTransition(run.state, this.to)) {
      r.store.commit(id, change);
      run.state = this.to;
      run.seq++;
    } else {
      let caught: unknown;
      try {
        r.store.commit(id, change);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(FaultlineError);
      expect((caught as FaultlineError).code).toBe('illegal-transition');
    }
    agree(m, r);
  }
  toString = (): string => `move(#${this.run_} → ${this.to})`;
}

/** One step of an action's lifecycle, spending a tool call. */
class Act implements Cmd {
  constructor(
    readonly run_: number,
    readonly op: string,
    readonly choice: number,
  ) {}
  check = (m: Readonly<Model>): boolean => m.runs.size > 0;
  run(m: Model, r: Real): void {
    const [id, run] = pick(m, this.run_)!;
    const next = NEXT_STATUS[run.actions.get(this.op) ?? 'none'] ?? [];
    if (next.length === 0) return;
    const status = next[this.choice % next.length]!;
    m.clock += 10;
    r.store.commit(id, {
      at: m.clock,
      event: { type: `action.${status}`, operationId: this.op, actionId: `${id}:${this.op}` },
      action: action(id, this.op, status, m.clock),
      used: { toolCalls: 1 },
      ...(status === 'confirmed'
        ? { checkpoint: { boundary: 'confirmed-action' as const, data: { op: this.op } } }
        : {}),
    });
    run.seq++;
    run.toolCalls++;
    if (status === 'confirmed') run.checkpoints++;
    // A map keeps first insertion order, as the store lists actions by first appearance.
    run.actions.set(this.op, status);
    agree(m, r);
  }
  toString = (): string => `act(#${this.run_}, ${this.op}, ${this.choice})`;
}

class Crash implements Cmd {
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    r.crash();
    agree(m, r);
  }
  toString = (): string => 'crash-and-reopen';
}

/** Cancellation is a transition with a recorded reason. */
class Cancel implements Cmd {
  constructor(readonly run_: number) {}
  check = (m: Readonly<Model>): boolean => m.runs.size > 0;
  run(m: Model, r: Real): void {
    const [id, run] = pick(m, this.run_)!;
    if (!isLegalTransition(run.state, 'cancelled')) return;
    m.clock += 10;
    r.store.commit(id, {
      at: m.clock,
      event: { type: 'run.cancelled', operatorAction: 'cancel' },
      to: 'cancelled',
      stop: { reason: 'cancelled', detail: 'the operator cancelled' },
    });
    run.state = 'cancelled';
    run.stopReason = 'cancelled';
    run.seq++;
    agree(m, r);
  }
  toString = (): string => `cancel(#${this.run_})`;
}

/** The next step of the run's approval: requested, then granted or denied, then consumed. */
class Approve implements Cmd {
  constructor(
    readonly run_: number,
    readonly choice: number,
  ) {}
  check = (m: Readonly<Model>): boolean => m.runs.size > 0;
  run(m: Model, r: Real): void {
    const [id, run] = pick(m, this.run_)!;
    const current = run.approvals.get(`${id}:approval`) ?? 'none';
    const next = NEXT_APPROVAL[current] ?? [];
    if (next.length === 0) return;
    const status = next[this.choice % next.length]!;
    m.clock += 10;
    r.store.commit(id, {
      at: m.clock,
      event: { type: `approval.${status}` },
      approval: approval(id, status, m.clock),
    });
    run.approvals.set(`${id}:approval`, status);
    run.seq++;
    agree(m, r);
  }
  toString = (): string => `approve(#${this.run_}, ${this.choice})`;
}

class Replan implements Cmd {
  constructor(readonly run_: number) {}
  check = (m: Readonly<Model>): boolean => m.runs.size > 0;
  run(m: Model, r: Real): void {
    const [id, run] = pick(m, this.run_)!;
    m.clock += 10;
    r.store.commit(id, {
      at: m.clock,
      event: { type: 'supervisor.replan' },
      plan: { reason: 'precondition failed', operations: [...OPERATIONS] },
      used: { retries: 1 },
    });
    run.planVersion++;
    run.retries++;
    run.seq++;
    agree(m, r);
  }
  toString = (): string => `replan(#${this.run_})`;
}

const commands = fc.commands(
  [
    fc.constantFrom(...RUN_IDS).map((id) => new Start(id)),
    fc.tuple(fc.nat(), fc.constantFrom(...WORKFLOW_STATES)).map(([run, to]) => new Move(run, to)),
    fc
      .tuple(fc.nat(), fc.constantFrom(...OPERATIONS), fc.nat())
      .map(([run, op, choice]) => new Act(run, op, choice)),
    fc.constant(new Crash()),
    fc.nat().map((run) => new Cancel(run)),
    fc.tuple(fc.nat(), fc.nat()).map(([run, choice]) => new Approve(run, choice)),
    fc.nat().map((run) => new Replan(run)),
  ],
  { maxCommands: 40 },
);

describe('RunStore against a model', () => {
  it('agrees with the model after every command, on a file that survives crashes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faultline-store-model-'));
    let n = 0;
    try {
      fc.assert(
        fc.property(commands, (cmds) => {
          const file = path.join(dir, `runs-${n++}.db`);
          let store = RunStore.open(file);
          const real: Real = {
            get store() {
              return store;
            },
            crash: () => {
              // Another process opens the file before this one is gone: only commits count.
              const next = RunStore.open(file);
              store.close();
              store = next;
            },
          };
          try {
            fc.modelRun(() => ({ model: { runs: new Map(), clock: 0 }, real }), cmds);
          } finally {
            store.close();
          }
        }),
        { numRuns: 60 },
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('agrees with the model after every command, in memory across image restores', () => {
    fc.assert(
      fc.property(commands, (cmds) => {
        let store = RunStore.openInMemory();
        const real: Real = {
          get store() {
            return store;
          },
          crash: () => {
            const image = store.serialize();
            store.close();
            store = RunStore.openInMemory(image);
          },
        };
        try {
          fc.modelRun(() => ({ model: { runs: new Map(), clock: 0 }, real }), cmds);
        } finally {
          store.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
