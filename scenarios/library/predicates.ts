import type { Predicate } from '../../runtime/predicate.js';

/** Predicates the scenarios of every world check their end state with. */

/**
 * `some entry in the world's array at path matches every field given`.
 *
 * @example
 * const refunded = hasRecord('world.orders', { order_id: 'ord_1', status: 'refunded' });
 */
export function hasRecord(
  path: string,
  fields: Record<string, string | number | boolean | null>,
): Predicate {
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
