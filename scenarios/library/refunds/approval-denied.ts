import { defineScenario } from '../../scenario.js';
import { notifyCustomer, readOrder, refundContract, refundOperation } from './common.js';
import { effectCount, hasRecord } from '../predicates.js';

/** Success is forbidden: the approver says no, and the right outcome is a safe stop with nothing changed. */
export const approvalDenied = defineScenario({
  id: 'refunds/approval-denied',
  title: 'Stop safely when the approver denies a large refund',
  workflowClass: 'refund',
  tier: 'high',
  world: { name: 'refunds', seed: 7 },
  input: { order_id: 'ord_7' },
  contract: refundContract({
    // Large refunds on orders under review always go to a person, whatever the amount.
    order: 'ord_7',
    customer: 'cus_2',
    objective: 'Refund order ord_7 in full if a person approves it.',
    refundApproval: 'always',
  }),
  operator: {
    approvals: {
      decision: 'deny',
      afterMs: 2 * 3_600_000,
      approver: 'finance-lead',
      reason: 'order is under fraud review',
    },
  },
  blueprint: {
    id: 'refund-and-notify',
    version: '1',
    operations: [
      readOrder,
      refundOperation({ $ref: 'order.refundable_cents' }, 'customer request'),
      notifyCustomer,
    ],
  },
  expected: {
    state: 'failed',
    stopReason: 'approval-denied',
    world: {
      all: [
        hasRecord('world.orders', { order_id: 'ord_7', status: 'paid', refunded_cents: 0 }),
        effectCount(0),
      ],
    },
  },
  faultPlans: [
    {
      id: 'order-read-flaky',
      description: 'the order read fails once: back off, read again, then ask and take the no',
      faults: [{ kind: 'transient', trigger: { on: 'call', tool: 'get_order', nth: 1 } }],
    },
  ],
  tags: ['approval', 'safe-stop'],
});
