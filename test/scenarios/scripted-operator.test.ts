import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../runtime/operator.js';
import { goodwillRefund } from '../../scenarios/library/refunds/goodwill-refund.js';
import { ScriptedOperator } from '../../scenarios/scripted-operator.js';
import { VirtualClock } from '../../scenarios/virtual-clock.js';
import { RefundsWorld } from '../../scenarios/worlds/refunds/index.js';

/** goodwill-refund's approver, answering for its contract (refunds capped at $100). */
function approver(): { operator: ScriptedOperator; world: RefundsWorld } {
  const clock = new VirtualClock();
  const world = new RefundsWorld({ seed: 31, clock });
  const operator = new ScriptedOperator(
    goodwillRefund.operator,
    world,
    clock,
    goodwillRefund.contract,
  );
  return { operator, world };
}

const refundPreview = (amount: number, order = 'ord_3'): ApprovalRequest => ({
  approvalId: 'apr-1',
  runId: 'run-1',
  actionId: 'act-1',
  operationId: 'refund',
  tool: 'issue_refund',
  args: { order_id: order, amount_cents: amount, reason: 'goodwill: late delivery' },
  evidenceRefs: [],
  requestedAt: 0,
});

describe('ScriptedOperator: a careful approver', () => {
  it('declines a change preview beyond the contract’s cap, though its script grants', async () => {
    const { operator, world } = approver();

    const decision = await operator.requestApproval(refundPreview(25_222));

    expect(goodwillRefund.operator.approvals.decision).toBe('grant');
    expect(decision).toMatchObject({ decision: 'denied' });
    expect(decision.decision === 'denied' && decision.reason).toMatch(
      /outside policy.*args\.amount_cents lte 10000/,
    );
    expect(world.approvals.records()).toEqual([]);
    expect(operator.log).toEqual([expect.objectContaining({ kind: 'approval.denied' })]);
  });

  it('declines a preview touching a resource outside the contract’s scope', async () => {
    const { operator } = approver();

    const decision = await operator.requestApproval(refundPreview(5_785, 'ord_4'));

    expect(decision.decision === 'denied' && decision.reason).toContain('order_id=ord_4');
  });

  it('grants a preview within policy, for exactly that action', async () => {
    const { operator, world } = approver();

    const decision = await operator.requestApproval(refundPreview(5_785));

    expect(decision).toMatchObject({ decision: 'granted', approver: 'ops-lead' });
    expect(world.approvals.records()).toEqual([
      expect.objectContaining({ tool: 'issue_refund', identity: 'refund:ord_3:5785' }),
    ]);
  });
});
