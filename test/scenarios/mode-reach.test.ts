import { describe, expect, it } from 'vitest';
import type { FaultPlan } from '../../faults/catalog.js';
import type { AutonomyMode } from '../../runtime/contract.js';
import { WORLDS } from '../../scenarios/library/worlds.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import { beyondReach, unreachableInMode, type RunReach } from '../../scenarios/mode-reach.js';
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
      { tool: 'get_order', toolCall: 1, step: 1, write: false },
      { tool: 'get_payment', toolCall: 1, step: 2, write: false },
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
