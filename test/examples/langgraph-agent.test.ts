import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import createAgent from '../../examples/langgraph-agent.js';
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
const module = './examples/langgraph-agent.ts';

const library = exampleOverLibrary({
  agent: createAgent,
  module,
  scenarios: BUILT_IN_SCENARIOS,
  outDir: out,
});

describe('the LangGraph.js example over the library', () => {
  it('is a LangGraph agent with a name and a version', () => {
    expect(createAgent()).toMatchObject({ name: 'langgraph-example', version: '1.0.0' });
  });

  it('passes the fault-free runs that need no approval and no judged stop; the rest fail on outcome or policy only', () => {
    expectFaultFreePasses(library.faultFree(), BUILT_IN_SCENARIOS.length);
  });

  it('resumes from its checkpoint after a crash: nothing confirmed is redone, only the write in flight', () => {
    const fired = library.crashed().filter((r) => r.trajectory.crashes.length === 1);
    expect(fired.length).toBeGreaterThan(0);
    for (const run of fired) {
      const before = run.trajectory.calls.filter((c) => c.incarnation === 0);
      const inFlight = before.at(-1);
      const again = run.trajectory.calls.find((c) => c.incarnation === 1);
      // The checkpoint holds the model's call, not its reply: the tool node runs it again.
      expect([again?.tool, again?.args], run.result.scenarioId).toEqual([
        inFlight?.tool,
        inFlight?.args,
      ]);
      expect(findingsOf(run), run.result.scenarioId).not.toContain(
        'recovery:confirmed-step-redone',
      );
    }
    const refund = fired.find((r) => r.result.scenarioId === 'refunds/partial-refund');
    // Its known flaw: the customer's message, sent but not checkpointed, goes out twice.
    expect(refund && findingsOf(refund)).toContain('integrity:duplicate-effect');
    expect(
      refund?.trajectory.calls
        .filter((c) => c.tool === 'send_customer_message')
        .map((c) => c.effects.length),
    ).toEqual([1, 1]);
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
