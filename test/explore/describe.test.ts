import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explorePlan, faultArbitrary } from '../../explore/arbitraries.js';
import { describeFault, describePlan, ordinal } from '../../explore/describe.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';

describe('describing plans in words', () => {
  it('counts as people do', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '101st',
      '111th',
    ]);
  });

  it('says what every fault the library can suffer does, naming no placeholder', () => {
    for (const scenario of BUILT_IN_SCENARIOS) {
      for (const fault of fc.sample(faultArbitrary(scenario), { numRuns: 200, seed: 4 })) {
        const words = describeFault(fault);
        expect(words).not.toMatch(/undefined|\[object|NaN/);
        if (fault.trigger.on === 'call') expect(words).toContain(fault.trigger.tool);
      }
    }
  });

  it('numbers a plan’s faults, and says when there are none', () => {
    const plan = explorePlan([
      { kind: 'lost-ack', trigger: { on: 'call', tool: 'issue_refund', nth: 2 } },
      { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply', nth: 1 }, mode: 'in-process' },
      { kind: 'cancellation', trigger: { on: 'time', atMs: 5_400_000 }, reason: 'x' },
    ]);

    expect(describePlan(plan)).toEqual([
      '1. lost-ack: the 2nd call of issue_refund is applied, but its reply is lost',
      '2. crash: the process crashes (in-process) at the 1st time the runtime reaches after-apply',
      '3. cancellation: the operator cancels the run 1h 30m into the run',
    ]);
    expect(describePlan(explorePlan([]))).toEqual(['no faults']);
  });
});
