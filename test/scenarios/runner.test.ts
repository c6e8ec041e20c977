import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseContract } from '../../runtime/contract.js';
import { RunStore } from '../../runtime/store.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { alreadyRefunded } from '../../scenarios/library/refunds/already-refunded.js';
import { approvalDenied } from '../../scenarios/library/refunds/approval-denied.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import { supervisedRefund } from '../../scenarios/library/refunds/supervised-refund.js';
import { WORLDS } from '../../scenarios/library/worlds.js';
import { runScenario, scopeFromContract, type ScenarioRunResult } from '../../scenarios/runner.js';
import { defineScenario, type Scenario } from '../../scenarios/scenario.js';
import { deterministicPart } from '../../scenarios/trajectory.js';
import type { World } from '../../scenarios/world/world.js';
import type { RefundsState } from '../../scenarios/worlds/refunds/world.js';

const HOUR = 3_600_000;

function freshDir(): string {
  return mkdtempSync(join(tmpdir(), 'faultline-runner-'));
}

/**
 * The runner returns plain data and keeps its world to itself; to look at the world after a
 * run, watch the registry hand it out.
 */
function watchWorlds(): () => World<RefundsState> {
  const factory = WORLDS.refunds!;
  const spy = vi.spyOn(factory, 'create');
  return () => {
    const created = spy.mock.results.at(-1);
    if (created?.type !== 'return') throw new Error('no world was created');
    return created.value as World<RefundsState>;
  };
}

/** Reads a run's records out of its store file, then closes it. */
function readStore<T>(result: ScenarioRunResult, read: (store: RunStore) => T): T {
  const store = RunStore.open(result.storePath);
  try {
    return read(store);
  } finally {
    store.close();
  }
}

/** Everything in a result that must be the same on every run of the same scenario and seed. */
function reproducible(result: ScenarioRunResult): unknown {
  const { wallMs: _wall, storePath: _path, trajectory, ...rest } = result;
  return { ...rest, trajectory: deterministicPart(trajectory) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('runScenario on the built-in suite', () => {
  const expectations: Record<
    string,
    { state: string; stopReason: string | null; writes: number; effects: number; virtualMs: number }
  > = {
    'refunds/full-refund': {
      state: 'completed',
      stopReason: null,
      writes: 2,
      effects: 2,
      virtualMs: 0,
    },
    'refunds/partial-refund': {
      state: 'completed',
      stopReason: null,
      writes: 2,
      effects: 2,
      virtualMs: 0,
    },
    'refunds/already-refunded': {
      state: 'completed',
      stopReason: 'decided-not-to-act',
      writes: 0,
      effects: 0,
      virtualMs: 0,
    },
    'refunds/supervised-refund': {
      state: 'completed',
      stopReason: null,
      writes: 2,
      effects: 2,
      virtualMs: 2 * 40 * 60_000,
    },
    'refunds/approval-denied': {
      state: 'failed',
      stopReason: 'approval-denied',
      writes: 0,
      effects: 0,
      virtualMs: 2 * HOUR,
    },
    'crm/update-contact': {
      state: 'completed',
      stopReason: null,
      writes: 2,
      effects: 2,
      virtualMs: 0,
    },
    'crm/merge-duplicates': {
      state: 'completed',
      stopReason: null,
      writes: 2,
      effects: 2,
      virtualMs: 20 * 60_000,
    },
    'crm/merge-denied': {
      state: 'failed',
      stopReason: 'approval-denied',
      writes: 0,
      effects: 0,
      virtualMs: HOUR,
    },
  };

  // Spot checks of what the runner reports, on the first worlds' scenarios; that every built-in
  // scenario and plan ends as it expects is held by the detection matrix (test/graders/matrix).
  const spotChecked = BUILT_IN_SCENARIOS.filter((s) => Object.hasOwn(expectations, s.id));

  it('spot-checks built-in scenarios only', () => {
    expect(spotChecked.map((s) => s.id).sort()).toEqual(Object.keys(expectations).sort());
  });

  it.each(spotChecked.map((s) => [s.id, s] as const))(
    '%s ends as its scenario expects',
    async (id, scenario) => {
      const outDir = freshDir();

      const result = await runScenario(scenario, { outDir });

      const want = expectations[id]!;
      expect(result.mismatches).toEqual([]);
      expect(result.asExpected).toBe(true);
      expect(result).toMatchObject({
        scenarioId: id,
        title: scenario.title,
        runId: `${id}#${scenario.world.seed}`,
        seed: scenario.world.seed,
        state: want.state,
        stopReason: want.stopReason,
        writesConfirmed: want.writes,
        effects: want.effects,
        virtualMs: want.virtualMs,
      });
      expect(result.state).toBe(scenario.expected.state);
      expect(result.storePath.startsWith(join(outDir, 'stores'))).toBe(true);
      expect(readdirSync(join(outDir, 'stores')).filter((f) => f.endsWith('.db'))).toHaveLength(1);
      const run = readStore(result, (store) => store.getRun(result.runId));
      expect(run?.state).toBe(want.state);
      expect(run?.stopReason ?? null).toBe(want.stopReason);
    },
  );
});

describe('runScenario: what the world shows afterwards', () => {
  it('approval-denied stops on the denial with nothing applied to the world', async () => {
    const worldOf = watchWorlds();

    const result = await runScenario(approvalDenied, { outDir: freshDir() });

    const world = worldOf();
    expect(result.state).toBe('failed');
    expect(result.stopReason).toBe('approval-denied');
    expect(world.ledger.entries()).toEqual([]);
    expect(world.approvals.records()).toEqual([]);
    expect(world.state.orders.find((o) => o.order_id === 'ord_7')).toMatchObject({
      status: 'paid',
      refunded_cents: 0,
    });
    expect(world.state.messages).toEqual([]);
    const approvals = readStore(result, (store) => store.approvals(result.runId));
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({
      tool: 'issue_refund',
      status: 'denied',
      approver: 'finance-lead',
      decidedAt: 2 * HOUR,
      token: null,
    });
  });

  it('full-refund consumes its one approval on the refund the world applied', async () => {
    const worldOf = watchWorlds();

    const result = await runScenario(fullRefund, { outDir: freshDir() });

    const world = worldOf();
    const records = world.approvals.records();
    expect(records).toHaveLength(1);
    const refund = world.ledger.entries().find((e) => e.tool === 'issue_refund');
    expect(refund).toBeDefined();
    expect(records[0]).toMatchObject({
      runId: result.runId,
      tool: 'issue_refund',
      approver: 'ops-lead',
      identity: refund!.identity,
    });
    expect(records[0]!.consumedAt).not.toBeNull();
    expect(records[0]!.consumedBy).toBe(refund!.requestId);
    expect(refund!.approvalToken).toBe(records[0]!.token);
    const stored = readStore(result, (store) => store.approvals(result.runId));
    expect(stored.map((a) => [a.tool, a.status, a.token])).toEqual([
      ['issue_refund', 'consumed', records[0]!.token],
    ]);
  });

  it('already-refunded leaves the colleague’s refund as the only one: setup effects do not count as the run’s', async () => {
    const worldOf = watchWorlds();

    const result = await runScenario(alreadyRefunded, { outDir: freshDir() });

    const world = worldOf();
    expect(result.effects).toBe(0);
    expect(world.ledger.entries().map((e) => [e.runId, e.tool])).toEqual([
      ['setup', 'issue_refund'],
    ]);
    expect(world.state.messages).toEqual([]);
  });

  it('supervised-refund asks a person for each write and waits 40 virtual minutes for each answer', async () => {
    const result = await runScenario(supervisedRefund, { outDir: freshDir() });

    const approvals = readStore(result, (store) => store.approvals(result.runId));
    expect(approvals.map((a) => [a.tool, a.approver, a.decidedAt])).toEqual([
      ['issue_refund', 'shift-supervisor', 40 * 60_000],
      ['send_customer_message', 'shift-supervisor', 80 * 60_000],
    ]);
  });
});

describe('runScenario: reproducibility and seeds', () => {
  it.each([fullRefund, supervisedRefund])(
    'gives equal results and equal event logs for two runs of $id',
    async (scenario) => {
      const first = await runScenario(scenario, { outDir: freshDir() });
      const second = await runScenario(scenario, { outDir: freshDir() });

      expect(second.storePath).not.toBe(first.storePath);
      expect(reproducible(second)).toEqual(reproducible(first));
      const events = (r: ScenarioRunResult): unknown[] =>
        readStore(r, (store) => store.events(r.runId));
      expect(events(second)).toEqual(events(first));
      expect(events(first).length).toBeGreaterThan(0);
    },
  );

  it('replaces the store when the same run is repeated into the same directory', async () => {
    const outDir = freshDir();
    const first = await runScenario(fullRefund, { outDir });
    const firstEvents = readStore(first, (store) => store.events(first.runId).length);

    const second = await runScenario(fullRefund, { outDir });

    expect(second.storePath).toBe(first.storePath);
    expect(
      readStore(second, (store) => [store.listRuns().length, store.events(second.runId).length]),
    ).toEqual([1, firstEvents]);
  });

  it('uses the seed it is given, in the run id and the store name, and checks the outcome against that world', async () => {
    const result = await runScenario(fullRefund, { outDir: freshDir(), seed: 1 });

    expect(result.seed).toBe(1);
    expect(result.runId).toBe('refunds/full-refund#1');
    expect(result.storePath.endsWith('refunds_full-refund_1.db')).toBe(true);
    // The world's shape is the same for every seed, so the scenario holds for seed 1 too.
    expect(result.asExpected).toBe(true);
    expect(result.mismatches).toEqual([]);
  });
});

describe('runScenario: bad scenarios', () => {
  it('refuses an unknown world before writing anything, naming the scenario and the known worlds', async () => {
    const outDir = freshDir();
    const scenario: Scenario = defineScenario({
      ...fullRefund,
      id: 'nowhere/lost',
      world: { ...fullRefund.world, name: 'nowhere' },
    });

    await expect(runScenario(scenario, { outDir })).rejects.toThrow(
      /nowhere\/lost.*unknown world "nowhere".*known: refunds/,
    );
    expect(existsSync(join(outDir, 'stores'))).toBe(false);
  });

  it('refuses a setup call the world rejects before writing anything, naming its index and tool', async () => {
    const outDir = freshDir();
    const scenario = defineScenario({
      ...alreadyRefunded,
      world: {
        ...alreadyRefunded.world,
        setup: [
          { tool: 'issue_refund', args: { order_id: 'ord_404', amount_cents: 100, reason: 'x' } },
        ],
      },
    });

    await expect(runScenario(scenario, { outDir })).rejects.toThrow(
      /refunds\/already-refunded: world\.setup\[0\] \(issue_refund\) failed: no order ord_404/,
    );
    expect(existsSync(join(outDir, 'stores'))).toBe(false);
  });
});

describe('scopeFromContract', () => {
  const tool = (
    resources: Record<string, '*' | string[]>,
  ): { risk: 'read'; resources: Record<string, '*' | string[]> } => ({ risk: 'read', resources });

  it('lists exactly the contract’s tools', () => {
    const scope = scopeFromContract(parseContract(fullRefund.contract));

    expect(scope.tools).toEqual([
      'get_order',
      'list_refunds',
      'issue_refund',
      'void_refund',
      'send_customer_message',
      'was_message_sent',
    ]);
    expect(scope.resources).toEqual({ order_id: ['ord_1'], customer_id: ['cus_1'] });
  });

  it('unions each argument’s allowed values across tools, without repeats', () => {
    const contract = parseContract({
      ...fullRefund.contract,
      authority: {
        tools: {
          a: tool({ order_id: ['ord_1', 'ord_2'] }),
          b: tool({ order_id: ['ord_2', 'ord_3'], customer_id: ['cus_1'] }),
          c: tool({}),
        },
      },
    });

    const scope = scopeFromContract(contract);

    expect(scope.tools).toEqual(['a', 'b', 'c']);
    expect(scope.resources).toEqual({
      order_id: ['ord_1', 'ord_2', 'ord_3'],
      customer_id: ['cus_1'],
    });
  });

  it.each([
    ['before', { a: tool({ order_id: '*' }), b: tool({ order_id: ['ord_1'] }) }],
    ['after', { a: tool({ order_id: ['ord_1'] }), b: tool({ order_id: '*' }) }],
  ])('lets "*" win over a list whether it comes %s it', (_where, tools) => {
    const scope = scopeFromContract(
      parseContract({ ...fullRefund.contract, authority: { tools } }),
    );

    expect(scope.resources).toEqual({ order_id: '*' });
  });
});
