import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import createAgent from '../../examples/ai-sdk-agent.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { deterministicPart } from '../../scenarios/trajectory.js';
import { tmpOut } from '../support/trial-harness.js';
import {
  CRASH_AFTER_SECOND_WRITE,
  exampleOverLibrary,
  expectFaultFreePasses,
  findingsOf,
  runSet,
} from './result-set.js';

const out = tmpOut();
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});
const module = './examples/ai-sdk-agent.ts';

const library = exampleOverLibrary({
  agent: createAgent,
  module,
  scenarios: BUILT_IN_SCENARIOS,
  outDir: out,
});

describe('the AI SDK example over the library', () => {
  it('is an AI SDK agent with a name and a version', () => {
    expect(createAgent()).toMatchObject({ name: 'ai-sdk-example', version: '1.0.0' });
  });

  it('passes the fault-free runs that need no approval and no judged stop; the rest fail on outcome or policy only', () => {
    expectFaultFreePasses(library.faultFree(), BUILT_IN_SCENARIOS.length);
  });

  it('keeps nothing across a crash: it starts over and sends again what the world confirmed (confirmed-step-redone)', () => {
    const fired = library.crashed().filter((r) => r.trajectory.crashes.length === 1);
    expect(fired.length).toBeGreaterThan(0);
    for (const run of fired) {
      const first = run.trajectory.calls.find((c) => c.incarnation === 0);
      const again = run.trajectory.calls.find((c) => c.incarnation === 1);
      // A new start: the plan's first call again, arguments and all.
      expect([again?.tool, again?.args], run.result.scenarioId).toEqual([first?.tool, first?.args]);
    }
    expect(
      fired
        .filter((r) => findingsOf(r).includes('recovery:confirmed-step-redone'))
        .map((r) => r.result.scenarioId),
    ).toEqual([
      'refunds/partial-refund',
      'tickets/triage-new-ticket',
      'tickets/assign-vip',
      'tickets/reassign-on-leave',
    ]);
    const refund = fired.find((r) => r.result.scenarioId === 'refunds/partial-refund');
    // The refund tool takes no key from this agent, so the redone refund is paid twice.
    expect(refund && findingsOf(refund)).toEqual(
      expect.arrayContaining(['integrity:duplicate-effect', 'recovery:confirmed-step-redone']),
    );
  });

  it('shows the same flaw, the same way, every time (one seed, one run)', async () => {
    const again = await runSet({
      agent: createAgent,
      module,
      scenarios: [partialRefund],
      plans: [CRASH_AFTER_SECOND_WRITE],
      outDir: out,
    });
    const before = library.crashed().find((r) => r.result.scenarioId === partialRefund.id);
    expect(again[0] && deterministicPart(again[0].trajectory)).toEqual(
      before && deterministicPart(before.trajectory),
    );
  });
});
