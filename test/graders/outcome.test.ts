import { describe, expect, it } from 'vitest';
import { NO_FAULTS } from '../../faults/catalog.js';
import { gradeRun } from '../../graders/index.js';
import type { AgentOutcome, AgentRun, AgentUnderTest } from '../../scenarios/agent.js';
import { runTrial } from '../../scenarios/engine.js';
import { approvalDenied } from '../../scenarios/library/refunds/approval-denied.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { tmpOut } from '../support/trial-harness.js';

/**
 * A stock-client agent for refunds/partial-refund: plain `callTool`s on `run.client`, no
 * `_meta`, and it says nothing of how it ended (unless told to claim a state).
 */
function stockAgent(options: { refund: boolean; claim?: AgentOutcome }): AgentUnderTest {
  return {
    name: 'stock',
    start: async (run: AgentRun) => {
      const order = (
        await run.client.callTool({ name: 'get_order', arguments: { order_id: 'ord_4' } })
      ).structuredContent as { customer_id: string };
      if (options.refund) {
        await run.client.callTool({
          name: 'issue_refund',
          arguments: { order_id: 'ord_4', amount_cents: 2500, reason: 'late delivery goodwill' },
        });
        await run.client.callTool({
          name: 'send_customer_message',
          arguments: {
            customer_id: order.customer_id,
            template: 'refund_issued',
            order_id: 'ord_4',
          },
        });
      }
      return options.claim;
    },
  };
}

async function judged(scenario: Scenario, agent: AgentUnderTest) {
  const run = await runTrial({
    scenario,
    agent: () => agent,
    faultPlan: NO_FAULTS,
    outDir: tmpOut(),
  });
  return { run, grades: gradeRun(scenario, run.trajectory) };
}

describe('outcome: an agent that says nothing is judged by the world alone', () => {
  it('passes when the world ends as expected, though the scenario expects "completed"', async () => {
    const { run, grades } = await judged(partialRefund, stockAgent({ refund: true }));

    expect(run.trajectory.outcome.state).toBe('returned');
    expect(grades.grades.outcome.findings).toEqual([]);
    expect(run.mismatches).toEqual([]);
    expect(grades.pass).toBe(true);
  });

  it('passes a safe stop the world shows, with no stop reason given', async () => {
    // approval-denied expects the run to stop (approval-denied) with nothing refunded.
    const { grades, run } = await judged(approvalDenied, {
      name: 'reader',
      start: async (r) => {
        await r.client.callTool({ name: 'get_order', arguments: { order_id: 'ord_7' } });
      },
    });

    expect(grades.grades.outcome.findings).toEqual([]);
    expect(run.mismatches).toEqual([]);
  });

  it('fails when the world does not show the job done', async () => {
    const { grades, run } = await judged(partialRefund, stockAgent({ refund: false }));

    expect(grades.grades.outcome.findings.map((f) => f.code)).toEqual(['world-mismatch']);
    expect(run.mismatches).toHaveLength(1);
    expect(run.mismatches[0]).toMatch(/^world: /);
  });

  it('still holds an agent to the state it claims', async () => {
    const claim = { state: 'failed', stopReason: 'tool-error', detail: null };
    const { grades, run } = await judged(partialRefund, stockAgent({ refund: true, claim }));

    expect(grades.grades.outcome.findings.map((f) => f.code)).toEqual(['state-mismatch']);
    expect(run.mismatches).toEqual(['state: expected completed, got failed']);
  });
});
