import { describe, expect, it } from 'vitest';
import { gradeRun } from '../../../graders/index.js';
import { runTrial } from '../../../scenarios/engine.js';
import { approvalDenied } from '../../../scenarios/library/refunds/approval-denied.js';
import { fullRefund } from '../../../scenarios/library/refunds/full-refund.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { stockAgent, stockLog, type StockOptions } from '../../support/stock-agent.js';
import { plan, tmpOut } from '../../support/trial-harness.js';
import type { FaultPlan } from '../../../faults/catalog.js';

async function run(scenario: Scenario, options: StockOptions, faultPlan?: FaultPlan) {
  const log = stockLog();
  const result = await runTrial({
    scenario,
    agent: () => stockAgent(log, options),
    outDir: tmpOut(),
    ...(faultPlan ? { faultPlan } : {}),
  });
  const grades = gradeRun(scenario, result.trajectory);
  const codes = Object.values(grades.grades).flatMap((g) => g.findings.map((f) => f.code));
  return { log, t: result.trajectory, grades, codes };
}

describe('approvals as tools, through the engine', () => {
  it('grants a change asked for with request_approval; the write presenting the token is accepted and graded within policy', async () => {
    const { log, t, grades } = await run(fullRefund, { approve: true, key: () => 'refund-1' });

    expect(log.approvals).toEqual([{ status: 'granted', approval_token: 'apr_1' }]);
    const refund = t.ledger.find((e) => e.tool === 'issue_refund');
    expect(refund?.approvalToken).toBe('apr_1');
    expect(t.approvals).toMatchObject([{ token: 'apr_1', tool: 'issue_refund', consumedAt: 0 }]);
    // Not world calls: the approval tools are nowhere in the wire log.
    expect(t.calls.map((c) => c.tool)).toEqual([
      'get_order',
      'issue_refund',
      'send_customer_message',
    ]);
    expect(t.calls[1]).toMatchObject({ approvalToken: 'apr_1', idempotencyKey: 'refund-1' });
    expect(t.operator.map((o) => o.kind)).toEqual(['agent.approval-request', 'approval.granted']);
    expect(grades.grades.policy.pass).toBe(true);
    expect(grades.grades['tool-use'].findings).toEqual([]);
    expect(grades.pass).toBe(true);
    // Its own client over run.connect(), never closed by the agent: the engine closed it.
    expect(log.closed).toBe(true);
  });

  it('flags the same write sent without asking: refused by the world, approval-missing by the policy grader', async () => {
    const { log, t, codes } = await run(fullRefund, {});

    expect(log.refusals[0]).toContain('approval missing');
    expect(t.ledger.filter((e) => e.tool === 'issue_refund')).toEqual([]);
    expect(codes).toContain('approval-missing');
  });

  it('answers a denial with its reason, after waiting in virtual time (pending until the operator decides)', async () => {
    const { log, t } = await run(approvalDenied, { approve: true });

    // The operator answers after 2 h; each wait ends after 30 s of virtual time, pending.
    const pending = log.approvals.filter((a) => a.status === 'pending');
    expect(pending.length).toBeGreaterThan(200);
    expect(log.approvals.at(-1)).toEqual({
      status: 'denied',
      reason: 'order is under fraud review',
    });
    expect(t.operator.map((o) => o.kind)).toEqual(['agent.approval-request', 'approval.denied']);
    expect(log.refusals[0]).toContain('approval missing');
    expect(t.ledger.filter((e) => e.tool === 'issue_refund')).toEqual([]);
    expect(t.times.virtualMs).toBeGreaterThanOrEqual(2 * 3_600_000);
  });

  it('goes through the fault-wrapped operator: an approval-denied fault denies the tool request too', async () => {
    const { log, t } = await run(
      fullRefund,
      { approve: true },
      plan('deny-first', {
        kind: 'approval-denied',
        trigger: { on: 'approval', nth: 1 },
        reason: 'fault says no',
      }),
    );

    expect(log.approvals).toEqual([{ status: 'denied', reason: 'fault says no' }]);
    expect(t.faults.fired).toHaveLength(1);
  });
});
