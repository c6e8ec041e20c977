import { describe, expect, it } from 'vitest';
import type { Scope } from '../../runtime/predicate.js';
import { verifyChecks, type FreshRead } from '../../runtime/verifier.js';

describe('verifyChecks', () => {
  const check = {
    description: 'the order can still be refunded by that much',
    read: { tool: 'get_order', args: { order_id: { $ref: 'input.order_id' } } },
    expect: { path: 'fresh.refundable_cents', op: 'gte' as const, value: { $ref: 'args.amount' } },
  };
  const read: FreshRead = (_tool, args) =>
    Promise.resolve({ ok: true, result: { order_id: args.order_id, refundable_cents: 500 } });

  it('judges each check over the scope plus its fresh read', async () => {
    const scope: Scope = { input: { order_id: 'ord_1' }, args: { amount: 500 } };

    expect(await verifyChecks([check], scope, read)).toEqual({ ok: true, failures: [] });
    expect(await verifyChecks([check], { ...scope, args: { amount: 501 } }, read)).toEqual({
      ok: false,
      failures: [
        'the order can still be refunded by that much: expected fresh.refundable_cents gte {"$ref":"args.amount"}',
      ],
    });
  });

  it('never copies the scope, which holds every result of a long run', async () => {
    let listings = 0;
    const results: Record<string, unknown> = { input: { order_id: 'ord_1' }, args: { amount: 5 } };
    for (let i = 0; i < 1_000; i++) results[`order-${i}`] = { refundable_cents: i };
    const scope = new Proxy(results, {
      ownKeys: (target) => {
        listings++;
        return Reflect.ownKeys(target);
      },
    });

    const verdict = await verifyChecks([check, check], scope, read);

    expect(verdict.ok).toBe(true);
    expect(listings).toBe(0);
  });
});
