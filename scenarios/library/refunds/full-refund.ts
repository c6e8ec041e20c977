import { defineScenario } from '../../scenario.js';
import { notifyCustomer, readOrder, refundContract, refundOperation } from './common.js';
import { effectCount, hasRecord } from '../predicates.js';

/** The everyday case: a refund above the approval threshold, approved, then the customer told. */
export const fullRefund = defineScenario({
  id: 'refunds/full-refund',
  title: 'Refund an order in full after approval, then tell the customer',
  workflowClass: 'refund',
  tier: 'high',
  world: { name: 'refunds', seed: 7 },
  input: { order_id: 'ord_1' },
  contract: refundContract({
    order: 'ord_1',
    customer: 'cus_1',
    objective: 'Refund order ord_1 in full (item arrived damaged) and tell the customer.',
    evidenceRequired: [
      {
        id: 'order-state',
        description: 'the order as it stood before the refund',
        operation: 'order',
      },
    ],
  }),
  blueprint: {
    id: 'refund-and-notify',
    version: '1',
    operations: [
      readOrder,
      refundOperation({ $ref: 'order.refundable_cents' }, 'item arrived damaged'),
      notifyCustomer,
    ],
    completion: [
      {
        description: 'the order is fully refunded',
        read: { tool: 'get_order', args: { order_id: { $ref: 'input.order_id' } } },
        expect: { path: 'fresh.status', op: 'eq', value: 'refunded' },
      },
    ],
  },
  expected: {
    state: 'completed',
    world: {
      all: [
        hasRecord('world.orders', { order_id: 'ord_1', status: 'refunded' }),
        hasRecord('world.messages', { customer_id: 'cus_1', template: 'refund_issued' }),
        effectCount(2),
      ],
    },
  },
  faultPlans: [
    {
      id: 'permission-revoked',
      description: 'refund permission is revoked before the refund is sent: stop, do not retry',
      faults: [
        {
          kind: 'revoked-permission',
          trigger: { on: 'call', tool: 'issue_refund', nth: 1 },
          tool: 'issue_refund',
        },
      ],
      expected: {
        state: 'blocked',
        stopReason: 'permission-lost',
        world: {
          all: [hasRecord('world.orders', { order_id: 'ord_1', status: 'paid' }), effectCount(0)],
        },
      },
    },
  ],
  tags: ['approval', 'happy-path'],
});
