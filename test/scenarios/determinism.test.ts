import { describe, expect, it } from 'vitest';
import { NO_FAULTS, type FaultPlan } from '../../faults/catalog.js';
import { ReferenceAgent } from '../../scenarios/agents/reference.js';
import { runTrial, trialSeed } from '../../scenarios/engine.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { deterministicPart, type Trajectory } from '../../scenarios/trajectory.js';
import type { RefundsState } from '../../scenarios/worlds/refunds/world.js';
import { plan, supervisedPartial, tmpOut } from '../support/trial-harness.js';

async function trajectory(
  scenario: Scenario,
  faultPlan: FaultPlan,
  options: { trial?: number; seed?: number; baseSeed?: number; outDir?: string } = {},
): Promise<Trajectory> {
  const { trajectory: t } = await runTrial({
    scenario,
    faultPlan,
    agent: () => new ReferenceAgent(),
    outDir: options.outDir ?? tmpOut(),
    ...options,
  });
  return t;
}

const CASES: [string, Scenario, FaultPlan, (t: Trajectory) => void][] = [
  [
    'no faults',
    partialRefund,
    NO_FAULTS,
    (t) => {
      expect(t.outcome.state).toBe('completed');
    },
  ],
  [
    'a lost acknowledgement',
    partialRefund,
    plan('lost-ack', { kind: 'lost-ack', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } }),
    (t) => {
      expect(t.calls.some((c) => c.reply === 'dropped')).toBe(true);
    },
  ],
  [
    'seeded probability faults',
    partialRefund,
    plan('flaky', { kind: 'transient', trigger: { on: 'probability', p: 0.4 } }),
    (t) => {
      expect(t.faults.fired.length).toBeGreaterThan(0);
    },
  ],
  [
    'an in-process crash and restart',
    partialRefund,
    plan('crash', {
      kind: 'crash',
      trigger: { on: 'probe', probe: 'after-apply', operation: 'refund' },
    }),
    (t) => {
      expect(t.crashes).toHaveLength(1);
    },
  ],
  [
    'approvals and an unavailable window spanning hours of virtual time',
    supervisedPartial,
    plan(
      'slow-and-down',
      { kind: 'approval-delayed', trigger: { on: 'approval', nth: 1 }, delayMs: 3_600_000 },
      {
        kind: 'unavailable',
        trigger: { on: 'call', tool: 'issue_refund', nth: 1 },
        windowMs: 20_000,
      },
    ),
    (t) => {
      expect(t.times.virtualMs).toBeGreaterThan(3_600_000);
    },
  ],
];

describe('Determinism: two runs, same inputs, equal trajectories', () => {
  it.each(CASES)('%s', async (_name, scenario, faultPlan, exercised) => {
    const first = await trajectory(scenario, faultPlan);
    const second = await trajectory(scenario, faultPlan);

    exercised(first);
    expect(deterministicPart(second)).toEqual(deterministicPart(first));
    expect(JSON.stringify(deterministicPart(second))).toBe(
      JSON.stringify(deterministicPart(first)),
    );
  });

  it('reproduces a run in the same output directory, over its old store', async () => {
    const outDir = tmpOut();
    const lostAck = CASES[1]![2];

    const first = await trajectory(partialRefund, lostAck, { outDir });
    const second = await trajectory(partialRefund, lostAck, { outDir });

    expect(JSON.stringify(deterministicPart(second))).toBe(
      JSON.stringify(deterministicPart(first)),
    );
  });

  it('leaves only the wall time out of the deterministic part', async () => {
    const t = await trajectory(partialRefund, NO_FAULTS);

    const part = deterministicPart(t);

    expect(part.times).toEqual({ virtualMs: t.times.virtualMs });
    expect({ ...part, times: t.times }).toEqual(t);
  });
});

describe('seeds', () => {
  it('gives another trial another seed and other world data', async () => {
    const zero = await trajectory(partialRefund, NO_FAULTS, { trial: 0 });
    const one = await trajectory(partialRefund, NO_FAULTS, { trial: 1 });

    expect(zero.seed).toBe(trialSeed(partialRefund.world.seed, partialRefund.id, 'none', 0));
    expect(one.seed).toBe(trialSeed(partialRefund.world.seed, partialRefund.id, 'none', 1));
    expect(one.seed).not.toBe(zero.seed);
    expect([zero.runId, one.runId]).toEqual([
      'refunds/partial-refund#none#0',
      'refunds/partial-refund#none#1',
    ]);
    const totals = (t: Trajectory) =>
      (t.world.start as RefundsState).orders.map((o) => o.total_cents);
    expect(totals(one)).not.toEqual(totals(zero));
    // The order ids are the same shape for every seed, so the scenario still names its order.
    expect(one.outcome.state).toBe('completed');
  });

  it('derives the seed from the base seed, unless the seed is fixed outright', async () => {
    const base = await trajectory(partialRefund, NO_FAULTS, { baseSeed: 99 });
    const fixed = await trajectory(partialRefund, NO_FAULTS, { seed: 1234, trial: 5 });

    expect(base.seed).toBe(trialSeed(99, partialRefund.id, 'none', 0));
    expect(fixed.seed).toBe(1234);
    expect(fixed.trial).toBe(5);
  });

  it('gives the same scenario another seed under another fault plan', () => {
    expect(trialSeed(7, partialRefund.id, 'none', 0)).not.toBe(
      trialSeed(7, partialRefund.id, 'lost-ack', 0),
    );
  });
});
