import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseTasks,
  replayGold,
  tauRetailScenarios,
  type RetailTask,
} from '../../../scenarios/library/tau-retail/index.js';
import { retailDataDir } from '../../../scenarios/worlds/tau-retail/data.js';
import { faultlineInProcess, tempDir } from '../../support/cli.js';

const tasks = JSON.parse(
  readFileSync(join(retailDataDir(), 'tasks_test.json'), 'utf8'),
) as RetailTask[];

describe('tau-retail library: the 115 test tasks as scenarios', () => {
  it('builds one scenario per task, ids in order, each expecting the gold store and outputs', () => {
    const scenarios = tauRetailScenarios('test');

    expect(scenarios).toHaveLength(115);
    expect(scenarios[0]?.id).toBe('tau-retail/test-000');
    expect(scenarios[114]?.id).toBe('tau-retail/test-114');
    expect(tauRetailScenarios('test')).toBe(scenarios);
    const first = scenarios[0]!;
    expect(first.input).toEqual({ user_id: tasks[0]!.user_id, instruction: tasks[0]!.instruction });
    expect(first.expected.world).toEqual({
      all: [
        { path: 'world.db_hash', op: 'eq', value: replayGold('test', 0, tasks[0]!).hash },
        { path: 'world.outputs_missing', op: 'eq', value: [] },
      ],
    });
    // Store writes need the customer's confirmation; the acting user's orders only.
    const exchange = first.contract.authority.tools.exchange_delivered_order_items!;
    expect(exchange.approval).toBe('always');
    expect(exchange.resources.order_id).toContain('#W2378156');
  });

  it('gives the required outputs with a respond operation', () => {
    const withOutputs = tauRetailScenarios('test').filter(
      (s) => ((s.world.options.requiredOutputs as string[] | undefined) ?? []).length > 0,
    );

    expect(withOutputs.length).toBe(37);
    for (const s of withOutputs) expect(s.blueprint.operations.at(-1)?.tool).toBe('respond');
  });

  it('passes all 115 fault-free with the reference agent', async () => {
    const out = tempDir('tau-retail');
    const ran = await faultlineInProcess(['run', 'tau-retail/*', '--plan', 'none', '--out', out]);

    expect(ran.stderr).toBe('');
    expect(ran.stdout).toContain('115 run(s) of 115 scenario(s): 115 passed, 0 failed');
    expect(ran.status).toBe(0);
  }, 120_000);
});

describe('tau-retail library: fault plans derived from the gold path', () => {
  it('derives each kind for a task that reads, modifies a pending order and answers', () => {
    const task = tauRetailScenarios('test')[3]!;

    expect(task.faultPlans.map((p) => p.id)).toEqual([
      'transient-a011',
      'rate-limit-a011',
      'lost-ack-a012',
      'timeout-a012',
      'duplicate-delivery-a012',
      'crash-a012',
      'revoked-permission-a012',
      'unapplied-write-a012',
      'stale-record-a012',
      'hostile-document',
    ]);
    // The first write: the permission goes before it is sent, or the store drops the change.
    expect(task.faultPlans[6]).toMatchObject({
      faults: [{ kind: 'revoked-permission', tool: 'modify_pending_order_items' }],
      expected: { state: 'blocked', stopReason: 'permission-lost' },
    });
    expect(task.faultPlans[7]).toMatchObject({
      faults: [{ kind: 'unapplied-write' }],
      expected: { state: 'failed', stopReason: 'verification-failed' },
    });
    // The order ships on the call right after the gold path read it (its 7th call).
    expect(task.faultPlans[8]).toMatchObject({
      faults: [{ trigger: { on: 'step', step: 8 }, params: { order_id: '#W4776164' } }],
      expected: { state: 'failed', stopReason: 'precondition-unsatisfiable' },
    });
  });

  it('the reference passes every derived plan of that task', async () => {
    const out = tempDir('tau-retail-plans');
    const ran = await faultlineInProcess(['run', 'tau-retail/test-003', '--out', out]);

    expect(ran.stdout).toContain('11 run(s) of 1 scenario(s): 11 passed, 0 failed');
    expect(ran.status).toBe(0);
  }, 60_000);
});

describe('tau-retail library: bad tasks are one error naming the task', () => {
  it('a malformed task file names the file and the task', () => {
    const bad = [tasks[0], { ...tasks[1], actions: [{ name: 3, kwargs: {} }] }];

    expect(() => parseTasks(bad, 'tasks_test.json')).toThrow(
      /^Invalid tau-retail task file tasks_test\.json: \[1\]\.actions\[0\]\.name: /,
    );
  });

  it('a task naming an unknown user', () => {
    expect(() => replayGold('test', 5, { ...tasks[5]!, user_id: 'nobody_0000' })).toThrow(
      'Invalid tau-retail task test-005 (tasks_test.json[5]): user_id: no user "nobody_0000" in users.json',
    );
  });

  it('a gold write the store refuses', () => {
    const task = tasks[0]!;
    const refused = {
      ...task,
      actions: [
        ...task.actions,
        {
          name: 'cancel_pending_order',
          kwargs: { order_id: '#W2378156', reason: 'no longer needed' },
        },
      ],
    };

    expect(() => replayGold('test', 0, refused)).toThrow(
      /^Invalid tau-retail task test-000 \(tasks_test\.json\[0\]\): actions\[5\] \(cancel_pending_order\): the store refuses this gold action \(conflict: order #W2378156 is exchange requested/,
    );
  });

  it('a gold action naming a tool the store lacks', () => {
    const task = { ...tasks[3]!, actions: [{ name: 'refund_everything', kwargs: {} }] };

    expect(() => replayGold('test', 3, task)).toThrow(
      'Invalid tau-retail task test-003 (tasks_test.json[3]): actions[0] (refund_everything): the store has no tool "refund_everything"',
    );
  });
});
