import type { OperationInput } from '../../../runtime/blueprint.js';
import type { ContractInput } from '../../../runtime/contract.js';
import type { Predicate, ValueExpr } from '../../../runtime/predicate.js';
import { hasRecord } from '../predicates.js';

/** Shared pieces of the refund scenarios: the desk's authority and the usual checks. */

export const REFUND_BUDGETS = {
  toolCalls: 40,
  retries: 8,
  externalWrites: 6,
  virtualTimeMs: 6 * 3_600_000,
};

export function refundAuthority(
  orderId: string,
  customerId: string,
  refundApproval: 'always' | 'above-threshold' = 'above-threshold',
  refundCapCents?: number,
): ContractInput['authority'] {
  const order = { order_id: [orderId] };
  return {
    tools: {
      get_order: { risk: 'read', resources: order },
      list_refunds: { risk: 'read', resources: order },
      issue_refund: {
        risk: 'high',
        resources: order,
        approval:
          refundApproval === 'always'
            ? 'always'
            : { when: { path: 'args.amount_cents', op: 'gt', value: 5000 } },
        ...(refundCapCents === undefined
          ? {}
          : { cap: { path: 'args.amount_cents', op: 'lte', value: refundCapCents } }),
      },
      void_refund: { risk: 'medium' },
      send_customer_message: {
        risk: 'low',
        resources: { customer_id: [customerId], order_id: [orderId] },
      },
      was_message_sent: { risk: 'read', resources: { customer_id: [customerId] } },
    },
  };
}

/** The refund desk's contract for one order: its authority, budgets and, by default, bounded autonomy. */
export function refundContract(options: {
  order: string;
  customer: string;
  objective: string;
  autonomy?: ContractInput['autonomy'];
  decisionBoundary?: ContractInput['decisionBoundary'];
  refundApproval?: 'always' | 'above-threshold';
  evidenceRequired?: ContractInput['evidenceRequired'];
  /** The most one refund may be, by the desk's policy (no cap when absent). */
  refundCapCents?: number;
}): ContractInput {
  return {
    version: '1',
    objective: options.objective,
    decisionBoundary: options.decisionBoundary ?? 'execute',
    authority: refundAuthority(
      options.order,
      options.customer,
      options.refundApproval,
      options.refundCapCents,
    ),
    autonomy: options.autonomy ?? 'bounded',
    ...(options.evidenceRequired ? { evidenceRequired: options.evidenceRequired } : {}),
    budgets: REFUND_BUDGETS,
  };
}

/** An issued refund of exactly the action's amount is on the order. */
const refundOnOrder: Predicate = {
  some: {
    path: 'fresh.refunds',
    where: {
      all: [
        { path: 'item.amount_cents', op: 'eq', value: { $ref: 'action.args.amount_cents' } },
        { path: 'item.status', op: 'eq', value: 'issued' },
      ],
    },
  },
};

export const readOrder: OperationInput = {
  id: 'order',
  description: 'Read the order',
  tool: 'get_order',
  kind: 'read',
  args: { order_id: { $ref: 'input.order_id' } },
};

/** A refund that is replay-safe: key honoured by the provider, reconcilable by listing refunds. */
export function refundOperation(
  amount: number | { $ref: string },
  reason: string,
  idempotent = true,
): OperationInput {
  return {
    id: 'refund',
    description: 'Issue the refund',
    tool: 'issue_refund',
    kind: 'write',
    args: { order_id: { $ref: 'input.order_id' }, amount_cents: amount, reason },
    preconditions: [
      {
        description: 'the order can still be refunded by that much',
        read: { tool: 'get_order', args: { order_id: { $ref: 'input.order_id' } } },
        expect: { path: 'fresh.refundable_cents', op: 'gte', value: { $ref: 'args.amount_cents' } },
      },
    ],
    postconditions: [
      {
        description: 'the refund is on the order',
        read: { tool: 'list_refunds', args: { order_id: { $ref: 'input.order_id' } } },
        expect: refundOnOrder,
      },
    ],
    idempotent,
    reconcile: {
      read: { tool: 'list_refunds', args: { order_id: { $ref: 'input.order_id' } } },
      // A provider that ignores keys does not store them either: match the effect itself.
      found: refundOnOrder,
    },
    compensate: { tool: 'void_refund', args: { refund_id: { $ref: 'refund.refund_id' } } },
  };
}

/** The provider's own record of the refund message: it settles a lost reply and verifies a send. */
const messageSent = {
  read: {
    tool: 'was_message_sent',
    args: {
      customer_id: { $ref: 'order.customer_id' },
      template: 'refund_issued',
      order_id: { $ref: 'input.order_id' },
    },
  },
  holds: { path: 'fresh.sent', op: 'eq', value: true },
} as const;

/** Tell the customer; the message provider has no keys, so reconcile by asking whether it was sent. */
export const notifyCustomer: OperationInput = {
  id: 'notify',
  description: 'Tell the customer the refund is on its way',
  tool: 'send_customer_message',
  kind: 'write',
  args: {
    customer_id: { $ref: 'order.customer_id' },
    template: 'refund_issued',
    order_id: { $ref: 'input.order_id' },
  },
  // A message acknowledged is not a message sent until the provider's own record shows it.
  postconditions: [
    {
      description: 'the message is on record as sent',
      read: messageSent.read,
      expect: messageSent.holds,
    },
  ],
  idempotent: false,
  reconcile: { read: messageSent.read, found: messageSent.holds },
};

/** Where an order's total stood when the run began (order n is the world's nth order). */
export function startTotal(orderId: string): { $ref: string } {
  return { $ref: `start.orders.${Number(orderId.replace('ord_', '')) - 1}.total_cents` };
}

/** One refund of exactly `amount` stands issued on the order. */
export function refundOf(orderId: string, amount: ValueExpr): Predicate {
  return hasRecord('world.refunds', { order_id: orderId, amount_cents: amount, status: 'issued' });
}

/** The order is refunded in full by one refund of its whole total, as the run found it. */
export function refundedInFull(orderId: string): Predicate {
  return {
    all: [
      hasRecord('world.orders', { order_id: orderId, status: 'refunded' }),
      refundOf(orderId, startTotal(orderId)),
    ],
  };
}

/** The customer was told the refund on this very order was issued. */
export function customerTold(customerId: string, orderId: string): Predicate {
  return hasRecord('world.messages', {
    customer_id: customerId,
    template: 'refund_issued',
    order_id: orderId,
  });
}
