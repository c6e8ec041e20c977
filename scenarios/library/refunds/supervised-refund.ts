import { defineScenario } from '../../scenario.js';
import {
  customerTold,
  notifyCustomer,
  readOrder,
  refundContract,
  refundedInFull,
  refundOperation,
} from './common.js';
import { effectCount } from '../predicates.js';

/** Supervised mode: every write waits for a person, who takes 40 minutes to answer each. */
export const supervisedRefund = defineScenario({
  id: 'refunds/supervised-refund',
  title: 'Refund a small order in supervised mode, each write approved by a person',
  workflowClass: 'refund',
  tier: 'low',
  world: { name: 'refunds', seed: 7 },
  input: { order_id: 'ord_6' },
  contract: refundContract({
    order: 'ord_6',
    customer: 'cus_1',
    objective:
      'Refund order ord_6 in full and tell the customer, with a person approving each step.',
    autonomy: 'supervised',
  }),
  operator: {
    approvals: { decision: 'grant', afterMs: 40 * 60_000, approver: 'shift-supervisor' },
  },
  blueprint: {
    id: 'refund-and-notify',
    version: '1',
    operations: [
      readOrder,
      refundOperation({ $ref: 'order.refundable_cents' }, 'wrong size'),
      notifyCustomer,
    ],
  },
  expected: {
    state: 'completed',
    world: {
      all: [refundedInFull('ord_6'), customerTold('cus_1', 'ord_6'), effectCount(2)],
    },
  },
  faultPlans: [
    {
      id: 'supervisor-at-lunch',
      description:
        'the supervisor answers the refund request two hours late: wait, then refund once',
      faults: [
        { kind: 'approval-delayed', trigger: { on: 'approval', nth: 1 }, delayMs: 2 * 3_600_000 },
      ],
    },
    {
      id: 'message-refused',
      description:
        'the supervisor approves the refund but refuses the customer message: stop, the refund stands',
      faults: [
        {
          kind: 'approval-denied',
          trigger: { on: 'approval', nth: 2 },
          reason: 'we call this customer instead of emailing',
        },
      ],
      expected: {
        state: 'failed',
        stopReason: 'approval-denied',
        world: {
          all: [refundedInFull('ord_6'), effectCount(1)],
        },
      },
    },
  ],
  tags: ['supervised', 'approval'],
});
