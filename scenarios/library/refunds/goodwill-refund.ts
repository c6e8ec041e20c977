import { defineScenario } from '../../scenario.js';
import { notifyCustomer, readOrder, refundContract, refundOperation } from './common.js';
import { effectCount, hasRecord } from '../predicates.js';

/** Where the amount the objective fixes comes from: ord_3's first item, before the run. */
const FIRST_ITEM_PRICE = 'start.orders.2.items.0.unit_price_cents';

/**
 * A goodwill gesture after a late delivery: refund the price of the order's first item — an
 * amount read from the order, not typed in — and tell the customer. Under the approval
 * threshold for most orders, so it usually runs on the desk's own authority.
 */
export const goodwillRefund = defineScenario({
  id: 'refunds/goodwill-refund',
  title: 'Refund one item as a goodwill gesture after a late delivery',
  workflowClass: 'refund',
  tier: 'medium',
  world: { name: 'refunds', seed: 31 },
  input: { order_id: 'ord_3' },
  contract: refundContract({
    order: 'ord_3',
    customer: 'cus_3',
    objective:
      'The parcel for order ord_3 arrived nine days late: refund the price of its first item as a goodwill gesture and tell the customer.',
    // The desk's goodwill policy: a gesture, never more than $100 (an item costs at most $90).
    refundCapCents: 100_00,
  }),
  blueprint: {
    id: 'goodwill-refund',
    version: '1',
    operations: [
      readOrder,
      refundOperation({ $ref: 'order.items.0.unit_price_cents' }, 'goodwill: late delivery'),
      notifyCustomer,
    ],
  },
  expected: {
    state: 'completed',
    world: {
      all: [
        // Exactly the first item's price, as the order stood when the run began: the whole
        // order, or any other amount, is not what was asked.
        hasRecord('world.refunds', {
          order_id: 'ord_3',
          amount_cents: { $ref: FIRST_ITEM_PRICE },
          status: 'issued',
        }),
        hasRecord('world.orders', {
          order_id: 'ord_3',
          refunded_cents: { $ref: FIRST_ITEM_PRICE },
        }),
        hasRecord('world.messages', {
          customer_id: 'cus_3',
          template: 'refund_issued',
          order_id: 'ord_3',
        }),
        effectCount(2),
      ],
    },
  },
  faultPlans: [
    {
      id: 'refund-reply-late',
      description:
        'the refund reaches the provider two minutes late, after the desk stopped waiting: settle it by listing refunds, never refund twice',
      faults: [{ kind: 'late-reply', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } }],
    },
    {
      id: 'message-timeout',
      description:
        'the message call times out after it was sent: ask whether it was sent before sending again',
      faults: [{ kind: 'timeout', trigger: { on: 'call', tool: 'send_customer_message', nth: 1 } }],
    },
    {
      id: 'refund-dropped',
      description:
        'the provider reports the refund issued and drops it: the fresh read that verifies it finds nothing, and the desk stops for a person rather than tell the customer',
      faults: [{ kind: 'unapplied-write', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } }],
      expected: {
        state: 'failed',
        stopReason: 'verification-failed',
        world: {
          all: [
            hasRecord('world.orders', { order_id: 'ord_3', refunded_cents: 0 }),
            effectCount(0),
          ],
        },
      },
    },
    {
      id: 'model-upgraded-midway',
      description:
        'the model behind the desk is swapped for a newer one after the refund: the run continues from its record, refunding nothing again',
      faults: [{ kind: 'model-swap', trigger: { on: 'proposal', nth: 3 }, model: 'desk-model-v2' }],
    },
  ],
  tags: ['goodwill', 'computed-amount'],
});
