import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import createAgent from '../../examples/langgraph-agent.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { deterministicPart } from '../../scenarios/trajectory.js';
import { tmpOut } from '../support/trial-harness.js';
import {
  CRASH_AFTER_SECOND_WRITE,
  failingOf,
  findingsOf,
  NO_FAULTS,
  runSet,
  type SetRun,
} from './result-set.js';

const out = tmpOut();
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});
const module = './examples/langgraph-agent.ts';

/** The scenarios the graph gets right with no fault: no approval, no stop to judge. */
const PASSING_FAULT_FREE = [
  'refunds/partial-refund',
  'refunds/already-refunded',
  'crm/update-contact',
  'crm/reassign-owner',
  'expenses/team-lunch',
  'expenses/amended-claim',
  'expenses/duplicate-claim',
  'tickets/triage-new-ticket',
  'tickets/assign-vip',
  'tickets/reassign-on-leave',
  'tickets/escalation-investigate',
  'notifications/security-notice',
  'notifications/visit-reminder',
  'notifications/visit-reminder-fallback',
  'notifications/overdue-invoices',
  'notifications/outage-already-notified',
  'cmdb/onboard-hosts',
  'cmdb/drift-update',
  'cmdb/retire-request',
  'research/heat-pump-share',
  'research/drone-inspection-market',
  'research/lfp-battery-share',
  'research/warehouse-robot-payback',
  'research/ppi-clopidogrel',
  'research/payroll-vendor-diligence',
];

let faultFree: SetRun[] = [];
let crashed: SetRun[] = [];
beforeAll(async () => {
  faultFree = await runSet({
    agent: createAgent,
    module,
    scenarios: BUILT_IN_SCENARIOS,
    plans: [NO_FAULTS],
    outDir: out,
  });
  crashed = await runSet({
    agent: createAgent,
    module,
    scenarios: BUILT_IN_SCENARIOS.filter((s) => PASSING_FAULT_FREE.includes(s.id)),
    plans: [CRASH_AFTER_SECOND_WRITE],
    outDir: out,
  });
}, 120_000);

describe('the LangGraph.js example over the library', () => {
  it('is a LangGraph agent with a name and a version', () => {
    expect(createAgent()).toMatchObject({ name: 'langgraph-example', version: '1.0.0' });
  });

  it('passes the fault-free runs that need no approval and no judged stop; the rest fail on outcome or policy only', () => {
    expect(faultFree).toHaveLength(BUILT_IN_SCENARIOS.length);
    expect(faultFree.filter((r) => r.result.pass).map((r) => r.result.scenarioId)).toEqual(
      PASSING_FAULT_FREE,
    );
    for (const run of faultFree.filter((r) => !r.result.pass)) {
      expect(failingOf(run), run.result.scenarioId).not.toContain('integrity');
      expect(failingOf(run), run.result.scenarioId).not.toContain('recovery');
    }
  });

  it('resumes from its checkpoint after a crash: nothing confirmed is redone, only the write in flight', () => {
    const fired = crashed.filter((r) => r.trajectory.crashes.length === 1);
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
    const before = crashed.find((r) => r.result.scenarioId === partialRefund.id);
    expect(again[0] && deterministicPart(again[0].trajectory)).toEqual(
      before && deterministicPart(before.trajectory),
    );
  });
});
