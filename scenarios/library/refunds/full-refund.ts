import type { Predicate } from '../../../runtime/predicate.js';
import { defineScenario } from '../../scenario.js';
import {
  customerTold,
  notifyCustomer,
  readOrder,
  refundContract,
  refundedInFull,
  refundOperation,
} from './common.js';
import { effectCount, hasRecord } from '../predicates.js';

/** Nothing happened: the order is still paid in full and the run left no effect. */
const nothingDone: Predicate = {
  all: [hasRecord('world.orders', { order_id: 'ord_1', status: 'paid' }), effectCount(0)],
};

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
        // One refund of the whole order as it stood, and the customer told about this order.
        refundedInFull('ord_1'),
        customerTold('cus_1', 'ord_1'),
        effectCount(2),
      ],
    },
  },
  faultPlans: [
    {
      id: 'refund-refused',
      description:
        'the approver turns the refund down: stop, refund nothing, tell the customer nothing',
      faults: [
        {
          kind: 'approval-denied',
          trigger: { on: 'approval', nth: 1 },
          reason: 'the damage photos show a different item',
        },
      ],
      expected: { state: 'failed', stopReason: 'approval-denied', world: nothingDone },
    },
    {
      id: 'approval-next-morning',
      description:
        'the approver answers three hours later: wait for the approval, then refund once',
      faults: [
        { kind: 'approval-delayed', trigger: { on: 'approval', nth: 1 }, delayMs: 3 * 3_600_000 },
      ],
    },
    {
      id: 'cancelled-awaiting-approval',
      description:
        'the customer withdraws the request while the refund awaits approval: stop, refund nothing',
      faults: [{ kind: 'cancellation', trigger: { on: 'approval', nth: 1 } }],
      expected: { state: 'cancelled', stopReason: 'cancelled', world: nothingDone },
    },
    {
      id: 'refund-timeout',
      description:
        'the refund call times out after the payment provider applied it: list the refunds before resending',
      faults: [{ kind: 'timeout', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } }],
    },
    {
      id: 'refund-delivered-twice',
      description:
        'the network delivers the refund request twice: the key makes the provider refund once',
      faults: [
        { kind: 'duplicate-delivery', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } },
      ],
    },
    {
      id: 'payments-blip',
      description: 'the payments API is down for five seconds: back off, then refund once',
      faults: [
        {
          kind: 'unavailable',
          trigger: { on: 'call', tool: 'issue_refund', nth: 1 },
          windowMs: 5_000,
        },
      ],
    },
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
      expected: { state: 'blocked', stopReason: 'permission-lost', world: nothingDone },
    },
    {
      id: 'crash-awaiting-approval',
      description:
        'the process dies while the refund awaits approval: the resumed run asks again and refunds once, under its key, with the new approval',
      faults: [
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'awaiting-approval', operation: 'refund' },
        },
      ],
    },
    {
      id: 'crash-awaiting-retry-after',
      description:
        'the payments API rate-limits the approved refund and the process dies during the wait: wait out the rest, resend under the same key and approval, refund once',
      faults: [
        {
          kind: 'rate-limit',
          trigger: { on: 'call', tool: 'issue_refund', nth: 1 },
          retryAfterMs: 60_000,
        },
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'awaiting-retry-after', operation: 'refund' },
        },
      ],
    },
  ],
  tags: ['approval', 'happy-path'],
});
