import { describe, expect, it } from 'vitest';
import type { FaultPlan } from '../../faults/catalog.js';
import type { AutonomyMode } from '../../runtime/contract.js';
import { WORLDS } from '../../scenarios/library/worlds.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import { unreachableInMode } from '../../scenarios/mode-reach.js';
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
