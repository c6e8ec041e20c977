import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullRefund } from '../../../scenarios/library/refunds/full-refund.js';
import { partialRefund } from '../../../scenarios/library/refunds/partial-refund.js';
import { plan, tmpOut } from '../../support/trial-harness.js';
import { ORACLE_MODEL } from '../../support/oracle.js';
import { ANTHROPIC_BASE_URL } from '../../support/provider-server.js';
import { findingCodes, OracleServer, runWithOracle } from '../../support/oracle-runs.js';

const out = tmpOut();
const oracle = new OracleServer();
beforeAll(() => {
  oracle.start();
});
afterAll(() => {
  oracle.stop();
  rmSync(out, { recursive: true, force: true });
});

describe('tool-loop, driven by the oracle over the OpenAI API', () => {
  it('passes the fault-free partial refund: reads, refunds, tells the customer', async () => {
    const run = await runWithOracle(oracle, {
      agent: 'tool-loop',
      scenario: partialRefund,
      outDir: out,
    });
    expect(run.trajectory.calls.map((c) => c.tool)).toEqual([
      'get_order',
      'issue_refund',
      'send_customer_message',
    ]);
    expect(run.result.state).toBe('completed');
    expect(findingCodes(run)).toEqual([]);
    expect(run.result.pass).toBe(true);
    expect(run.requests).toHaveLength(4);
  });

  it('passes the fault-free full refund: asks approval, waits, refunds with the token, tells the customer', async () => {
    const run = await runWithOracle(oracle, {
      agent: 'tool-loop',
      scenario: fullRefund,
      outDir: out,
    });
    expect(run.trajectory.calls.map((c) => c.tool)).toEqual([
      'get_order',
      'issue_refund',
      'send_customer_message',
    ]);
    expect(findingCodes(run)).toEqual([]);
    expect(run.result.pass).toBe(true);
  });

  it.each([
    ['refund-ack-lost', 'issue_refund'],
    ['message-ack-lost', 'send_customer_message'],
  ])(
    'sends the write again after its acknowledgement was lost (%s): the effect is made twice',
    async (planId, tool) => {
      const lostAck = partialRefund.faultPlans.find((p) => p.id === planId)!;
      const run = await runWithOracle(oracle, {
        agent: 'tool-loop',
        scenario: partialRefund,
        plan: lostAck,
        outDir: out,
      });
      const sent = run.trajectory.calls.filter((c) => c.tool === tool);
      expect(sent).toHaveLength(2);
      // The model put no key in the arguments, so the loop sent none.
      expect(sent.every((c) => c.idempotencyKey === null)).toBe(true);
      expect(findingCodes(run)).toContain('integrity:duplicate-effect');
      expect(run.result.pass).toBe(false);
    },
  );

  it('starts over after a crash and redoes the confirmed refund', async () => {
    const crash = plan('crash-after-second-write', {
      kind: 'crash',
      trigger: { on: 'probe', probe: 'after-apply', nth: 2 },
    });
    const run = await runWithOracle(oracle, {
      agent: 'tool-loop',
      scenario: partialRefund,
      plan: crash,
      outDir: out,
    });
    expect(run.trajectory.crashes).toHaveLength(1);
    const again = run.trajectory.calls.filter((c) => c.incarnation === 1).map((c) => c.tool);
    expect(again[0]).toBe('get_order');
    expect(findingCodes(run)).toEqual(
      expect.arrayContaining(['integrity:duplicate-effect', 'recovery:confirmed-step-redone']),
    );
  });

  it('stops, in its own words, when the approval is denied: nothing refunded, the stop is right', async () => {
    const refused = fullRefund.faultPlans.find((p) => p.id === 'refund-refused')!;
    const run = await runWithOracle(oracle, {
      agent: 'tool-loop',
      scenario: fullRefund,
      plan: refused,
      outDir: out,
    });
    expect(run.result.state).toBe('stopped');
    expect(run.result.stopReason).toMatch(/denied/);
    expect(run.trajectory.calls.map((c) => c.tool)).toEqual(['get_order']);
    expect(run.result.pass).toBe(true);
  });

  it('tells the model the job in plain words, sends the whole transcript every turn, and is metered', async () => {
    const run = await runWithOracle(oracle, {
      agent: 'tool-loop',
      scenario: partialRefund,
      outDir: out,
    });
    const [first, ...rest] = run.requests;
    const opening = JSON.stringify(first?.body.messages);
    expect(opening).toContain(partialRefund.contract.objective);
    expect(opening).toContain('{\\"order_id\\":\\"ord_4\\"}');
    expect(opening).not.toMatch(/faultline|blueprint|contract|operation|idempotenc/i);
    // Each request repeats the previous one whole, with the last reply and result added.
    rest.forEach((request, i) => {
      const before = run.requests[i]!.body.messages as unknown[];
      const now = request.body.messages as unknown[];
      expect(now.slice(0, before.length)).toEqual(before);
      expect(now.length).toBe(before.length + 2);
    });
    expect(run.trajectory.model?.id).toBe('openai:gpt-test');
    expect(run.trajectory.modelCalls).toHaveLength(run.requests.length);
    expect(run.result.figures.inputTokens).toBeGreaterThan(0);
    expect(run.result.figures.modelCalls).toBe(run.requests.length);
  });

  it('shows the same flaw over the Anthropic Messages API', async () => {
    const lostAck = partialRefund.faultPlans.find((p) => p.id === 'refund-ack-lost')!;
    const run = await runWithOracle(oracle, {
      agent: 'tool-loop',
      scenario: partialRefund,
      plan: lostAck,
      outDir: out,
      model: {
        ...ORACLE_MODEL,
        spec: 'anthropic:claude-test',
        provider: 'anthropic',
        api: 'anthropic',
        modelId: 'claude-test',
        baseURL: ANTHROPIC_BASE_URL,
      },
    });
    expect(run.requests.every((r) => r.provider === 'anthropic')).toBe(true);
    expect(run.trajectory.calls.filter((c) => c.tool === 'issue_refund')).toHaveLength(2);
    expect(findingCodes(run)).toContain('integrity:duplicate-effect');
  });
});
