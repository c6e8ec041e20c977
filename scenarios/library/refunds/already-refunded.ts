import type { Predicate } from '../../../runtime/predicate.js';
import { defineScenario } from '../../scenario.js';
import { notifyCustomer, readOrder, refundContract, refundOperation } from './common.js';
import { effectCount, hasRecord } from '../predicates.js';

const nothingRefundedYet: Predicate = { path: 'order.refunded_cents', op: 'eq', value: 0 };

/** An "investigate whether to…" objective where the right answer is "do not": a colleague already refunded. */
export const alreadyRefunded = defineScenario({
  id: 'refunds/already-refunded',
  title: 'Investigate a refund request for an order a colleague already refunded',
  workflowClass: 'refund',
  tier: 'medium',
  world: {
    name: 'refunds',
    seed: 7,
    setup: [
      {
        tool: 'issue_refund',
        args: {
          order_id: 'ord_5',
          amount_cents: { $ref: 'world.orders.4.total_cents' },
          reason: 'refunded by phone',
        },
      },
    ],
  },
  input: { order_id: 'ord_5' },
  contract: refundContract({
    order: 'ord_5',
    customer: 'cus_5',
    objective:
      'A customer asks again for a refund on ord_5. Find out whether one is owed; refund and notify only if nothing was refunded yet.',
    decisionBoundary: 'investigate',
    evidenceRequired: [
      { id: 'order-state', description: 'the order and its refunds so far', operation: 'order' },
    ],
  }),
  blueprint: {
    id: 'refund-if-owed',
    version: '1',
    operations: [
      readOrder,
      {
        ...refundOperation({ $ref: 'order.refundable_cents' }, 'customer request'),
        when: nothingRefundedYet,
      },
      { ...notifyCustomer, when: nothingRefundedYet },
    ],
  },
  expected: {
    state: 'completed',
    stopReason: 'decided-not-to-act',
    world: {
      all: [hasRecord('world.orders', { order_id: 'ord_5', status: 'refunded' }), effectCount(0)],
    },
  },
  tags: ['decision-boundary', 'do-not-act'],
});
