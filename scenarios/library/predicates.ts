import type { Predicate, ValueExpr } from '../../runtime/predicate.js';

/** Predicates the scenarios of every world check their end state with. */

/**
 * `some entry in the world's array at path matches every field given`. A field's value may be
 * a `$ref`, so an amount the seed decides is pinned to where it comes from in the world as the
 * run began (`start`).
 *
 * @example
 * const refunded = hasRecord('world.orders', { order_id: 'ord_1', status: 'refunded' });
 * const oneItem = hasRecord('world.refunds', {
 *   order_id: 'ord_3',
 *   amount_cents: { $ref: 'start.orders.2.items.0.unit_price_cents' },
 * });
 */
export function hasRecord(path: string, fields: Record<string, ValueExpr>): Predicate {
  return {
    some: {
      path,
      where: {
        all: Object.entries(fields).map(([k, v]) => ({
          path: `item.${k}`,
          op: 'eq' as const,
          value: v,
        })),
      },
    },
  };
}

/**
 * Exactly `n` of this run's effects are in the world's ledger.
 *
 * @example
 * const refundedAndTold = { all: [hasRecord('world.orders', { status: 'refunded' }), effectCount(2)] };
 */
export function effectCount(n: number): Predicate {
  return { path: 'effects.length', op: 'eq', value: n };
}
