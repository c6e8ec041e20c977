import { describe, expect, it } from 'vitest';
import type { FaultPlan } from '../../faults/catalog.js';
import type { AutonomyMode } from '../../runtime/contract.js';
import { WORLDS } from '../../scenarios/library/worlds.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import {
  beyondReach,
  stopKeptInMode,
  unreachableInMode,
  type RunReach,
} from '../../scenarios/mode-reach.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { VirtualClock } from '../../scenarios/virtual-clock.js';

const world = WORLDS.refunds!.create({ seed: 1, clock: new VirtualClock() });
const inMode = (mode: AutonomyMode): Scenario => ({
  ...fullRefund,
  contract: { ...fullRefund.contract, autonomy: mode },
});
const plan = (faults: FaultPlan['faults']): FaultPlan => ({ id: 'p', description: '', faults });

describe('unreachableInMode', () => {
  it('shadow: faults on approvals, the first write, a write tool or a write-path probe never fire', () => {
    const reasons = unreachableInMode(
      inMode('shadow'),
      plan([
        { kind: 'approval-denied', trigger: { on: 'approval', nth: 1 }, reason: 'no' },
        { kind: 'timeout', trigger: { on: 'first-write' } },
        { kind: 'lost-ack', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } },
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'after-intent', nth: 1 },
          mode: 'in-process',
        },
      ]),
      world,
    );
    expect(reasons).toEqual([
      'faults[0] (approval-denied) fires on approval 1, and shadow mode asks for none',
      'faults[1] (timeout) fires on the first write, and shadow mode sends none',
      'faults[2] (lost-ack) fires on issue_refund, a write, which shadow mode never sends',
      'faults[3] (crash) fires at the after-intent crash probe, past the policy gate that shadow mode stops every write at',
    ]);
  });

  it('shadow: faults on the nth write or after an applied write never fire', () => {
    const reasons = unreachableInMode(
      inMode('shadow'),
      plan([
        { kind: 'transient', trigger: { on: 'write', nth: 2 }, message: 'again' },
        { kind: 'crash', trigger: { on: 'applied-write', nth: 1 }, mode: 'in-process' },
      ]),
      world,
    );
    expect(reasons).toEqual([
      'faults[0] (transient) fires on write 2, and shadow mode sends none',
      'faults[1] (crash) fires after the world applied write 1, and shadow mode sends none',
    ]);
  });

  it('shadow: faults on reads, steps and the before-intent probe may fire, so they are kept', () => {
    expect(
      unreachableInMode(
        inMode('recommend'),
        plan([
          { kind: 'timeout', trigger: { on: 'call', tool: 'get_order', nth: 1 } },
          {
            kind: 'crash',
            trigger: { on: 'probe', probe: 'before-intent', nth: 1 },
            mode: 'in-process',
          },
        ]),
        world,
      ),
    ).toEqual([]);
  });

  it('supervised and bounded: every trigger may fire', () => {
    const p = plan([{ kind: 'timeout', trigger: { on: 'first-write' } }]);
    expect(unreachableInMode(inMode('supervised'), p, world)).toEqual([]);
    expect(unreachableInMode(inMode('bounded'), p, world)).toEqual([]);
  });
});

describe('beyondReach', () => {
  // A fault-free run that read an order, then a payment, and ended at 5 s.
  const reach: RunReach = {
    calls: [
      { tool: 'get_order', toolCall: 1, step: 1, at: 0, write: false },
      { tool: 'get_payment', toolCall: 1, step: 2, at: 2_000, write: false },
    ],
    virtualMs: 5_000,
  };
  const stale = (trigger: FaultPlan['faults'][number]['trigger']): FaultPlan['faults'][number] => ({
    kind: 'stale-record',
    trigger,
    change: 'void',
    params: {},
  });

  it('a plan whose every fault lies past the run is not applicable, each fault with why', () => {
    expect(
      beyondReach(
        plan([
          stale({ on: 'step', step: 3 }),
          stale({ on: 'time', atMs: 5_001 }),
          { kind: 'timeout', trigger: { on: 'call', tool: 'get_order', nth: 2 } },
          { kind: 'timeout', trigger: { on: 'probability', p: 1, tool: 'get_customer' } },
        ]),
        reach,
        'shadow',
      ),
    ).toEqual([
      'faults[0] (stale-record) fires at step 3, and the fault-free run in shadow mode ends after 2 call(s)',
      'faults[1] (stale-record) fires at 5001 ms, and the fault-free run in shadow mode ends at 5000 ms',
      'faults[2] (timeout) fires on call 2 of get_order, and the fault-free run in shadow mode makes 1',
      'faults[3] (timeout) fires on calls of get_customer, and the fault-free run in shadow mode makes none',
    ]);
  });

  it('a fault the run reaches keeps its plan, and every fault of it stays required to fire', () => {
    for (const reached of [
      stale({ on: 'step', step: 2 }),
      stale({ on: 'time', atMs: 5_000 }),
      { kind: 'timeout' as const, trigger: { on: 'call' as const, tool: 'get_payment', nth: 1 } },
      { kind: 'timeout' as const, trigger: { on: 'probability' as const, p: 0.5 } },
    ]) {
      expect(beyondReach(plan([stale({ on: 'step', step: 9 }), reached]), reach, 'shadow')).toEqual(
        [],
      );
    }
  });

  it('triggers a fault-free run does not record are left to the rules of the mode', () => {
    expect(
      beyondReach(
        plan([
          { kind: 'approval-denied', trigger: { on: 'approval', nth: 1 }, reason: 'no' },
          { kind: 'invalid-output', trigger: { on: 'proposal', nth: 9 } },
        ]),
        reach,
        'shadow',
      ),
    ).toEqual([]);
  });
});

describe('stopKeptInMode', () => {
  // A read-only run: two reads of the ticket tool, the second at 10 s.
  const reach: RunReach = {
    calls: [
      { tool: 'get_order', toolCall: 1, step: 1, at: 0, write: false },
      { tool: 'get_order', toolCall: 2, step: 2, at: 10_000, write: false },
    ],
    virtualMs: 10_000,
  };
  const stopping = (
    faults: FaultPlan['faults'],
    stopReason: 'permission-lost' | 'approval-denied',
  ): FaultPlan => ({
    ...plan(faults),
    expected: { state: stopReason === 'permission-lost' ? 'blocked' : 'failed', stopReason },
  });
  const expires = (
    trigger: FaultPlan['faults'][number]['trigger'],
  ): FaultPlan['faults'][number] => ({
    kind: 'expired-credential',
    trigger,
  });
  const withBudgets = (budgets: Partial<Scenario['contract']['budgets']>): Scenario => ({
    ...fullRefund,
    contract: { ...fullRefund.contract, budgets: { ...fullRefund.contract.budgets, ...budgets } },
    expected: { ...fullRefund.expected, state: 'failed', stopReason: 'budget-exhausted' },
  });

  it('keeps a model-spend cap, which proposals spend in every mode; not a cap on calls', () => {
    expect(stopKeptInMode(withBudgets({ costUsd: 0.4 }), plan([]), undefined)).toEqual({
      state: 'failed',
      stopReason: 'budget-exhausted',
    });
    expect(stopKeptInMode(withBudgets({ costUsd: 0 }), plan([]), undefined)).toBeNull();
  });

  it('keeps a lost permission only when the run reaches it and then reads with it', () => {
    const lost = { state: 'blocked', stopReason: 'permission-lost' };
    for (const trigger of [
      { on: 'call' as const, tool: 'get_order', nth: 2 },
      { on: 'step' as const, step: 1 },
      { on: 'time' as const, atMs: 9_999 },
    ])
      expect(
        stopKeptInMode(fullRefund, stopping([expires(trigger)], 'permission-lost'), reach),
      ).toEqual(lost);
    for (const trigger of [
      { on: 'call' as const, tool: 'get_order', nth: 3 },
      { on: 'step' as const, step: 3 },
      // A timer in the last call's own instant may fire after it: not certain, not kept.
      { on: 'time' as const, atMs: 10_000 },
      { on: 'first-write' as const },
    ])
      expect(
        stopKeptInMode(fullRefund, stopping([expires(trigger)], 'permission-lost'), reach),
      ).toBeNull();
    // A permission revoked on a write the mode never sends stops nothing.
    expect(
      stopKeptInMode(
        fullRefund,
        stopping(
          [{ kind: 'revoked-permission', tool: 'issue_refund', trigger: { on: 'step', step: 1 } }],
          'permission-lost',
        ),
        reach,
      ),
    ).toBeNull();
    expect(
      stopKeptInMode(
        fullRefund,
        stopping([expires({ on: 'step', step: 1 })], 'permission-lost'),
        undefined,
      ),
    ).toBeNull();
  });

  it('never keeps a stop that needs an approval or a write', () => {
    expect(
      stopKeptInMode(
        fullRefund,
        stopping([expires({ on: 'step', step: 1 })], 'approval-denied'),
        reach,
      ),
    ).toBeNull();
  });
});
