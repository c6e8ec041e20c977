import { describe, expect, it } from 'vitest';
import { parseBlueprint, type Blueprint } from '../../runtime/blueprint.js';
import { parseContract } from '../../runtime/contract.js';
import type { Planner } from '../../runtime/planner.js';
import type { ActionRecord, ActionStatus } from '../../runtime/records.js';
import { ScriptedPlanner } from '../../runtime/scripted-planner.js';
import { RunStore } from '../../runtime/store.js';
import type { WorkingContext } from '../../runtime/working-context.js';
import { checkWrittenPlan, emptyPlan } from '../../runtime/written-plan.js';
import {
  freezeAt,
  ORDER,
  refundBlueprint,
  refundContract,
  refundHarness,
} from '../support/refund-harness.js';

const blueprint: Blueprint = parseBlueprint(refundBlueprint(true));
const contract = parseContract(refundContract());

function action(operationId: string, status: ActionStatus): ActionRecord {
  const op = blueprint.operations.find((o) => o.id === operationId);
  return {
    id: `a-${operationId}`,
    runId: 'run-1',
    operationId,
    tool: op?.tool ?? 'none',
    kind: op?.kind ?? 'read',
    args: {},
    idempotencyKey: null,
    status,
    attempts: 1,
    result: null,
    errorClass: null,
    origin: 'blueprint',
    approvalId: null,
    compensates: null,
    createdAt: 0,
    updatedAt: 0,
  };
}

function check(operations: Blueprint['operations'], statuses: Record<string, ActionStatus>) {
  const actions = new Map(Object.entries(statuses).map(([id, s]) => [id, action(id, s)]));
  return checkWrittenPlan(
    { operations, completion: [] },
    { current: blueprint, actions, contract, hasTool: () => true },
  );
}

const [order, refund, notify] = blueprint.operations as [
  Blueprint['operations'][number],
  Blueprint['operations'][number],
  Blueprint['operations'][number],
];

describe('checkWrittenPlan: what a replan may not touch', () => {
  it.each(['intended', 'sent', 'ambiguous', 'confirmed'] as const)(
    'refuses dropping a %s write, naming it and why',
    (status) => {
      expect(check([order, notify], { order: 'confirmed', refund: status })).toEqual([
        `operation "refund" is ${status}: a new plan may not drop or rename it (its idempotency key rests on its id)`,
      ]);
    },
  );

  it('refuses renaming a sent write (a new id is a new idempotency key)', () => {
    const issues = check([order, { ...refund, id: 'refund-2' }, notify], { refund: 'sent' });
    expect(issues).toEqual([
      'operation "refund" is sent: a new plan may not drop or rename it (its idempotency key rests on its id)',
    ]);
  });

  it('refuses changing an ambiguous write, naming the fields that differ', () => {
    const changed = { ...refund, args: { ...refund.args, amount_cents: 9900 }, idempotent: false };
    expect(check([order, changed, notify], { refund: 'ambiguous' })).toEqual([
      'operation "refund" is ambiguous: a new plan may not change it (args, idempotent differ)',
    ]);
  });

  it('lets a replan change, drop or add operations nothing was done for', () => {
    const changedNotify = { ...notify, args: { ...notify.args, template: 'apology' } };
    expect(check([order, refund, changedNotify], { order: 'confirmed', refund: 'sent' })).toEqual(
      [],
    );
    expect(check([order, refund], { refund: 'failed' })).toEqual([]);
    expect(check([order], {})).toEqual([]);
  });

  it('refuses duplicate ids and tools outside the world or the contract', () => {
    const issues = checkWrittenPlan(
      { operations: [order, order, { ...notify, tool: 'delete_everything' }], completion: [] },
      {
        current: emptyPlan(),
        actions: new Map(),
        contract,
        hasTool: (name) => name !== 'delete_everything',
      },
    );
    expect(issues).toEqual([
      'operations[1].id: duplicate operation id "order"',
      'operations[2].tool: the world has no tool "delete_everything"',
    ]);
  });
});

/** A planner that writes `plan` first (and again when `replan` says so), then follows it. */
class WritingPlanner implements Planner {
  readonly versions = { model: 'test-writer', prompt: 'p1' };
  readonly contexts: WorkingContext[] = [];
  private readonly follow = new ScriptedPlanner(blueprint);

  constructor(private readonly answers: unknown[] = []) {}

  propose(context: WorkingContext): Promise<{ proposal: unknown }> {
    this.contexts.push(context);
    const next = this.answers.shift();
    if (next !== undefined) return Promise.resolve({ proposal: next });
    if (context.plan?.operations.length === 0) {
      return Promise.resolve({
        proposal: { kind: 'plan', reason: 'refund then notify', operations: blueprint.operations },
      });
    }
    return Promise.resolve({ proposal: this.follow.next(context) });
  }
}

const PLAN = { kind: 'plan', reason: 'refund then notify', operations: blueprint.operations };

describe('an objective-only run: the planner writes the plan, the runtime stores and runs it', () => {
  it('stores the written plan as plan version 2 and runs it to completion', async () => {
    const h = refundHarness({ honourKeys: true });
    const connection = await h.connect();
    const store = RunStore.open(h.storePath);
    const planner = new WritingPlanner();
    const outcome = await h.runtime(connection, store, { planner }).start({
      runId: 'run-1',
      contract: refundContract(),
      planning: 'objective',
      input: { order_id: ORDER },
    });

    expect(outcome.state).toBe('completed');
    expect(h.refunds()).toHaveLength(1);
    const plans = store.plans('run-1');
    expect(plans.map((p) => [p.version, p.operations])).toEqual([
      [1, []],
      [2, ['order', 'refund', 'notify']],
    ]);
    expect(plans[1]?.written?.operations).toEqual(blueprint.operations);
    // The planner saw no blueprint: an empty plan and the world's tools.
    expect(planner.contexts[0]?.plan).toEqual({ by: 'objective', operations: [], completion: [] });
    expect(planner.contexts[0]?.tools?.map((t) => t.name)).toContain('issue_refund');
    store.close();
    await connection.close();
  });

  it('refuses a replan that drops a confirmed write as invalid output, then goes on', async () => {
    const h = refundHarness({ honourKeys: true });
    const connection = await h.connect();
    const store = RunStore.open(h.storePath);
    // It writes the plan, follows it, and once the refund is confirmed writes one without it.
    const planner = new WritingPlanner();
    let refused = false;
    const replanning: Planner = {
      versions: planner.versions,
      propose: async (context) => {
        const status = context.operations.find((o) => o.id === 'refund')?.status;
        if (status === 'confirmed' && !refused) {
          refused = true;
          return { proposal: { ...PLAN, operations: [order, notify] } };
        }
        return planner.propose(context);
      },
    };
    const outcome = await h.runtime(connection, store, { planner: replanning }).start({
      runId: 'run-1',
      contract: refundContract(),
      planning: 'objective',
      input: { order_id: ORDER },
    });

    expect(outcome.state).toBe('completed');
    expect(h.refunds()).toHaveLength(1);
    const invalid = store.events('run-1').filter((e) => e.type === 'planner.invalid-output');
    expect(invalid).toHaveLength(1);
    expect(store.plans('run-1')).toHaveLength(2);
    const lines = store
      .events('run-1')
      .filter((e) => e.type === 'planner.invalid-output')
      .map((e) => e.reason);
    expect(lines[0]).toContain(
      'operation "refund" is confirmed: a new plan may not drop or rename it (its idempotency key rests on its id)',
    );
    store.close();
    await connection.close();
  });

  it('refuses a plan in a run that follows a blueprint', async () => {
    const h = refundHarness({ honourKeys: true });
    const connection = await h.connect();
    const store = RunStore.open(h.storePath);
    const planner = new WritingPlanner([PLAN]);
    const outcome = await h.runtime(connection, store, { planner }).start({
      runId: 'run-1',
      contract: refundContract(),
      blueprint: refundBlueprint(true),
      input: { order_id: ORDER },
    });
    expect(outcome.state).toBe('completed');
    const reasons = store
      .events('run-1')
      .filter((e) => e.type === 'planner.invalid-output')
      .map((e) => e.reason);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain(
      'kind: this run follows blueprint goodwill; a plan is written only in an objective-only run',
    );
    store.close();
    await connection.close();
  });

  it('resumes after a crash with the plan it wrote, without redoing the applied refund', async () => {
    const h = refundHarness({ honourKeys: false });
    const first = await h.connect();
    const store = RunStore.open(h.storePath);
    const crash = freezeAt('after-result-saved', 'refund');
    void h.runtime(first, store, { planner: new WritingPlanner(), probe: crash.handler }).start({
      runId: 'run-1',
      contract: refundContract(),
      planning: 'objective',
      input: { order_id: ORDER },
    });
    await crash.reached;
    store.close();
    await first.close();

    const second = await h.connect();
    const store2 = RunStore.open(h.storePath);
    const planner = new WritingPlanner();
    const outcome = await h.runtime(second, store2, { planner }).resume('run-1');

    expect(outcome.state).toBe('completed');
    expect(h.refunds()).toHaveLength(1);
    expect(h.wire[1]?.calls.some((c) => c.tool === 'issue_refund')).toBe(false);
    // The resumed planner was handed the stored plan, not asked to write one again.
    expect(planner.contexts[0]?.plan?.operations.map((o) => o.id)).toEqual([
      'order',
      'refund',
      'notify',
    ]);
    store2.close();
    await second.close();
  });

  it('refuses objective-only planning without a planner that writes plans, writing nothing', async () => {
    const h = refundHarness({ honourKeys: true });
    const connection = await h.connect();
    const store = RunStore.open(h.storePath);
    await expect(
      h.runtime(connection, store).start({
        runId: 'run-1',
        contract: refundContract(),
        planning: 'objective',
      }),
    ).rejects.toThrow("Run run-1: planning 'objective' needs a planner that writes the plan");
    expect(store.hasRun('run-1')).toBe(false);
    store.close();
    await connection.close();
  });
});
