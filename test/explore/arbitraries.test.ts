import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  explorePlanId,
  faultArbitrary,
  faultPlanArbitrary,
  operatorFaultArbitrary,
} from '../../explore/arbitraries.js';
import { scenarioReach } from '../../explore/reach.js';
import { notApplicableFaults } from '../../faults/applicability.js';
import {
  FAULT_KINDS,
  FAULT_LAYER,
  faultPlanSchema,
  type FaultKind,
  type Trigger,
} from '../../faults/catalog.js';
import { validateFaultPlan } from '../../scenarios/engine.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { CRASH_PROBES } from '../../runtime/crash-probe.js';
import { WORLDS } from '../../scenarios/library/worlds.js';
import { defineScenario, type Scenario } from '../../scenarios/scenario.js';
import { VirtualClock } from '../../scenarios/virtual-clock.js';

const worldOf = (scenario: Scenario) =>
  WORLDS[scenario.world.name]!.create({ seed: scenario.world.seed, clock: new VirtualClock() });

/** A scenario of nobody's library: reads only, no approvals, no declared plans. */
const lookOnly = defineScenario({
  id: 'refunds/look-only',
  title: 'Read an order',
  workflowClass: 'lookup',
  tier: 'low',
  world: { name: 'refunds', seed: 3 },
  input: { order_id: 'ord_2' },
  contract: {
    version: '1',
    objective: 'Read order ord_2.',
    decisionBoundary: 'execute',
    authority: { tools: { get_order: { risk: 'read' } } },
    autonomy: 'bounded',
    budgets: { toolCalls: 5, retries: 2, externalWrites: 0, virtualTimeMs: 60_000 },
  },
  blueprint: {
    id: 'look',
    version: '1',
    operations: [{ id: 'order', tool: 'get_order', kind: 'read', args: { order_id: 'ord_2' } }],
  },
  expected: { state: 'completed', world: { path: 'effects.length', op: 'eq', value: 0 } },
});

describe('faultPlanArbitrary', () => {
  it.each([...BUILT_IN_SCENARIOS, lookOnly].map((s) => [s.id, s] as const))(
    'makes only plans the engine accepts for %s, with stable ids and at most maxFaults faults',
    (_, scenario) => {
      const world = worldOf(scenario);
      fc.assert(
        fc.property(faultPlanArbitrary(scenario, { maxFaults: 4 }), (plan) => {
          expect(() => {
            validateFaultPlan(scenario, plan, world);
          }).not.toThrow();
          expect(plan.faults.length).toBeLessThanOrEqual(4);
          expect(plan.id).toBe(explorePlanId(plan.faults));
          // What the catalog's schema makes of it is the plan itself: nothing left to default.
          expect(faultPlanSchema.parse(plan)).toEqual(plan);
        }),
        { numRuns: 300, seed: 7 },
      );
    },
  );

  it('reaches every fault kind and every trigger across the library', () => {
    const kinds = new Set<string>();
    const triggers = new Set<Trigger['on']>();
    for (const scenario of BUILT_IN_SCENARIOS) {
      const reach = scenarioReach(scenario);
      for (const plan of fc.sample(faultPlanArbitrary(reach), { numRuns: 400, seed: 1 })) {
        for (const fault of plan.faults) {
          kinds.add(fault.kind);
          triggers.add(fault.trigger.on);
        }
      }
    }

    expect([...kinds].sort()).toEqual([...FAULT_KINDS].sort());
    expect([...triggers].sort()).toEqual(
      [
        'approval',
        'call',
        'first-write',
        'probability',
        'probe',
        'proposal',
        'step',
        'time',
      ].sort(),
    );
  });

  it('offers every crash probe, a crash awaiting an approval only at a write that can wait for one', () => {
    const reach = scenarioReach(partialRefund);
    const asking = reach.writes.filter((w) => w.asksApproval).map((w) => w.id);
    const probes = new Set<string>();
    for (const fault of fc.sample(faultArbitrary(reach, { kinds: ['crash'] }), {
      numRuns: 600,
      seed: 2,
    })) {
      if (fault.trigger.on !== 'probe') continue;
      probes.add(fault.trigger.probe);
      if (fault.trigger.probe === 'awaiting-approval' && fault.trigger.operation !== undefined)
        expect(asking).toContain(fault.trigger.operation);
    }

    expect(asking).toEqual(['refund']);
    expect([...probes].sort()).toEqual([...CRASH_PROBES].sort());
  });

  it('pairs a crash awaiting a backoff or a retry-after at a write with the failure that starts the wait', () => {
    const reach = scenarioReach(fullRefund);
    let paired = 0;
    for (const plan of fc.sample(faultPlanArbitrary(reach, { maxFaults: 2 }), {
      numRuns: 3_000,
      seed: 4,
    })) {
      for (const fault of plan.faults) {
        const t = fault.trigger;
        if (fault.kind !== 'crash' || t.on !== 'probe' || t.operation === undefined) continue;
        if (t.probe !== 'awaiting-backoff' && t.probe !== 'awaiting-retry-after') continue;
        const cause = t.probe === 'awaiting-backoff' ? 'transient' : 'rate-limit';
        const tool = reach.writes.find((w) => w.id === t.operation)?.tool;
        const started = plan.faults.some(
          (f) =>
            f.kind === cause &&
            ((f.trigger.on === 'call' && f.trigger.tool === tool) ||
              f.trigger.on === 'probability'),
        );
        // Only a plan already full may lack it (the crash then waits on what the plan holds).
        expect(started || plan.faults.length === 2).toBe(true);
        if (started) paired++;
      }
    }
    expect(paired).toBeGreaterThan(0);
  });

  it('keeps calls within what the blueprint can make and times within the budget', () => {
    const reach = scenarioReach(fullRefund);
    fc.assert(
      fc.property(faultArbitrary(reach), (fault) => {
        const t = fault.trigger;
        if (t.on === 'call') expect(t.nth).toBeLessThanOrEqual(reach.calls[t.tool]!);
        if (t.on === 'time') expect(t.atMs).toBeLessThan(fullRefund.contract.budgets.virtualTimeMs);
        if (t.on === 'probe' && t.operation !== undefined)
          expect(reach.writes.map((w) => w.id)).toContain(t.operation);
        if (fault.kind === 'crash') expect(fault.mode).toBe('in-process');
      }),
      { numRuns: 500, seed: 3 },
    );
  });

  it('never delivers a write twice to a provider without idempotency keys', () => {
    const reach = scenarioReach(fullRefund);
    fc.assert(
      fc.property(faultArbitrary(reach, { kinds: ['duplicate-delivery', 'late-reply'] }), (f) => {
        expect(f.trigger.on).toBe('call');
        if (f.trigger.on === 'call') expect(f.trigger.tool).not.toBe('send_customer_message');
      }),
      { numRuns: 200, seed: 5 },
    );
  });

  it('shrinks toward fewer faults', () => {
    const result = fc.check(
      fc.property(faultPlanArbitrary(fullRefund), (plan) => plan.faults.length < 2),
      { seed: 11, numRuns: 200 },
    );

    expect(result.failed).toBe(true);
    expect(result.counterexample?.[0]?.faults).toHaveLength(2);
  });

  it('refuses a negative maxFaults', () => {
    expect(() => faultPlanArbitrary(fullRefund, { maxFaults: -1 })).toThrow(/maxFaults/);
  });
});

describe('operatorFaultArbitrary', () => {
  it('makes only what a person can do: deny, delay, cancel', () => {
    const supervised = BUILT_IN_SCENARIOS.find((s) => s.id === 'refunds/supervised-refund')!;
    const kinds = new Set(
      fc.sample(operatorFaultArbitrary(supervised), { numRuns: 300, seed: 2 }).map((f) => f.kind),
    );

    expect([...kinds].sort()).toEqual(['approval-delayed', 'approval-denied', 'cancellation']);
  });

  it('cancels only, where the scenario never asks for an approval', () => {
    const kinds = new Set(
      fc.sample(operatorFaultArbitrary(lookOnly), { numRuns: 100, seed: 2 }).map((f) => f.kind),
    );

    expect([...kinds]).toEqual(['cancellation']);
  });
});

describe('faults drawn for an agent with no probes and no planner', () => {
  const plain = { probes: false, planner: false };

  it('are all applicable to it: no model faults, no runtime probe, crashes still drawn', () => {
    const kinds = new Set<string>();
    const probes = new Set<string>();
    for (const scenario of BUILT_IN_SCENARIOS) {
      const reach = scenarioReach(scenario);
      const world = worldOf(scenario);
      fc.assert(
        fc.property(faultPlanArbitrary(reach, { maxFaults: 3, agent: plain }), (plan) => {
          validateFaultPlan(scenario, plan, world);
          expect(notApplicableFaults(plan, plain, scenario.blueprint)).toEqual([]);
          for (const f of plan.faults) {
            kinds.add(f.kind);
            if (f.trigger.on === 'probe') probes.add(f.trigger.probe);
          }
        }),
        { numRuns: 30, seed: 14 },
      );
    }
    expect([...kinds].filter((k) => FAULT_LAYER[k as FaultKind] === 'model')).toEqual([]);
    expect(kinds.has('crash')).toBe(true);
    expect([...probes]).toEqual(['after-apply']);
  });

  it('leaves the reference its whole catalogue: model faults and runtime probes', () => {
    const kinds = new Set<string>();
    fc.assert(
      fc.property(
        faultArbitrary(partialRefund, { agent: { probes: true, planner: true } }),
        (f) => {
          kinds.add(f.trigger.on === 'probe' ? `probe:${f.trigger.probe}` : f.kind);
        },
      ),
      { numRuns: 400, seed: 14 },
    );
    expect(kinds.has('invalid-output')).toBe(true);
    expect(kinds.has('probe:before-send')).toBe(true);
  });
});
