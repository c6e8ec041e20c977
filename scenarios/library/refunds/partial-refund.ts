import { defineScenario } from '../../scenario.js';
import {
  effectCount,
  hasRecord,
  notifyCustomer,
  readOrder,
  refundContract,
  refundOperation,
} from './common.js';

/** A goodwill partial refund under the approval threshold: no person in the loop. */
export const partialRefund = defineScenario({
  id: 'refunds/partial-refund',
  title: 'Issue a $25 goodwill refund without approval',
  workflowClass: 'refund',
  tier: 'medium',
  world: { name: 'refunds', seed: 7 },
  input: { order_id: 'ord_4' },
  contract: refundContract({
    order: 'ord_4',
    customer: 'cus_4',
    objective:
      'Refund $25.00 on order ord_4 as goodwill for a late delivery and tell the customer.',
  }),
  blueprint: {
    id: 'goodwill-refund',
    version: '1',
    operations: [readOrder, refundOperation(2500, 'late delivery goodwill'), notifyCustomer],
    completion: [
      {
        description: 'the order shows the partial refund',
        read: { tool: 'get_order', args: { order_id: { $ref: 'input.order_id' } } },
        expect: {
          all: [
            { path: 'fresh.status', op: 'eq', value: 'partially_refunded' },
            { path: 'fresh.refunded_cents', op: 'eq', value: 2500 },
          ],
        },
      },
    ],
  },
  expected: {
    state: 'completed',
    world: {
      all: [hasRecord('world.orders', { order_id: 'ord_4', refunded_cents: 2500 }), effectCount(2)],
    },
  },
  faultPlans: [
    {
      id: 'refund-ack-lost',
      description: 'the refund is applied but its reply never arrives',
      faults: [{ kind: 'lost-ack', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } }],
    },
    {
      id: 'crash-after-apply',
      description: 'the process dies right after the provider applied the refund',
      faults: [
        { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply', operation: 'refund' } },
      ],
    },
    {
      id: 'message-flaky',
      description: 'the email provider fails once, then rate-limits',
      faults: [
        { kind: 'transient', trigger: { on: 'call', tool: 'send_customer_message', nth: 1 } },
        {
          kind: 'rate-limit',
          trigger: { on: 'call', tool: 'send_customer_message', nth: 2 },
          retryAfterMs: 90_000,
        },
      ],
    },
  ],
  tags: ['happy-path'],
});
