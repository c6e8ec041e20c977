import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../runtime/canonical-json.js';
import {
  describePredicate,
  evaluate,
  extendScope,
  explainFailure,
  predicateSchema,
  readPath,
  refsOf,
  resolveValue,
  type Predicate,
  type Scope,
} from '../../runtime/predicate.js';

const scope: Scope = {
  input: { order_id: 'ord_1', limit: 1_000 },
  order: {
    status: 'paid',
    total_cents: 500,
    refunded: false,
    note: null,
    tags: ['vip', 'eu'],
    address: { city: 'Lyon' },
    items: [
      { sku: 'a', qty: 1 },
      { sku: 'b', qty: 3 },
    ],
  },
};

describe('readPath', () => {
  it('reads nested fields and array indices as plain segments', () => {
    expect(readPath(scope, 'order.status')).toBe('paid');
    expect(readPath(scope, 'order.address.city')).toBe('Lyon');
    expect(readPath(scope, 'order.items.1.sku')).toBe('b');
    expect(readPath(scope, 'order.tags.0')).toBe('vip');
  });

  it('returns undefined for missing paths and when descending through a primitive or null', () => {
    expect(readPath(scope, 'nope')).toBeUndefined();
    expect(readPath(scope, 'order.missing.deeper')).toBeUndefined();
    expect(readPath(scope, 'order.status.length')).toBeUndefined();
    expect(readPath(scope, 'order.note.x')).toBeUndefined();
    expect(readPath(scope, 'order.items.9.sku')).toBeUndefined();
    expect(readPath(null, 'a')).toBeUndefined();
  });
});

describe('resolveValue', () => {
  it('returns literals as they are', () => {
    expect(resolveValue('x', scope)).toBe('x');
    expect(resolveValue(3, scope)).toBe(3);
    expect(resolveValue(false, scope)).toBe(false);
    expect(resolveValue(null, scope)).toBeNull();
    expect(resolveValue(undefined, scope)).toBeUndefined();
  });

  it('resolves $ref, also inside arrays', () => {
    expect(resolveValue({ $ref: 'input.order_id' }, scope)).toBe('ord_1');
    expect(resolveValue({ $ref: 'order.address' }, scope)).toEqual({ city: 'Lyon' });
    expect(
      resolveValue(['lit', { $ref: 'order.total_cents' }, [{ $ref: 'order.tags.1' }]], scope),
    ).toEqual(['lit', 500, ['eu']]);
    expect(resolveValue({ $ref: 'order.missing' }, scope)).toBeUndefined();
  });
});

describe('refsOf', () => {
  it('collects every $ref in an expression or predicate', () => {
    expect(refsOf({ a: { $ref: 'x.y' }, b: [1, { $ref: 'z' }], c: 'lit' })).toEqual(['x.y', 'z']);
    expect(refsOf({ all: [{ path: 'p', op: 'eq', value: { $ref: 'order.status' } }] })).toEqual([
      'order.status',
    ]);
    expect(refsOf('plain')).toEqual([]);
    expect(refsOf(undefined)).toEqual([]);
  });
});

describe('evaluate: comparisons', () => {
  it.each<[Predicate, boolean]>([
    [{ path: 'order.status', op: 'eq', value: 'paid' }, true],
    [{ path: 'order.status', op: 'eq', value: 'refunded' }, false],
    [{ path: 'order.total_cents', op: 'eq', value: '500' }, false],
    [{ path: 'order.tags', op: 'eq', value: ['vip', 'eu'] }, true],
    [{ path: 'order.tags', op: 'eq', value: ['eu', 'vip'] }, false],
    [{ path: 'order.note', op: 'eq', value: null }, true],
    [{ path: 'order.status', op: 'ne', value: 'refunded' }, true],
    [{ path: 'order.status', op: 'ne', value: 'paid' }, false],
    [{ path: 'order.total_cents', op: 'gt', value: 499 }, true],
    [{ path: 'order.total_cents', op: 'gt', value: 500 }, false],
    [{ path: 'order.total_cents', op: 'gte', value: 500 }, true],
    [{ path: 'order.total_cents', op: 'gte', value: 501 }, false],
    [{ path: 'order.total_cents', op: 'lt', value: 501 }, true],
    [{ path: 'order.total_cents', op: 'lt', value: 500 }, false],
    [{ path: 'order.total_cents', op: 'lte', value: 500 }, true],
    [{ path: 'order.total_cents', op: 'lte', value: 499 }, false],
    [{ path: 'order.status', op: 'in', value: ['paid', 'shipped'] }, true],
    [{ path: 'order.status', op: 'in', value: ['shipped'] }, false],
    [{ path: 'order.total_cents', op: 'in', value: [1, 500] }, true],
    [{ path: 'order.status', op: 'in', value: 'paid' }, false],
    [{ path: 'order.status', op: 'exists' }, true],
    [{ path: 'order.refunded', op: 'exists' }, true],
    [{ path: 'order.note', op: 'exists' }, false],
    [{ path: 'order.missing', op: 'exists' }, false],
    [{ path: 'order.missing', op: 'absent' }, true],
    [{ path: 'order.note', op: 'absent' }, true],
    [{ path: 'order.refunded', op: 'absent' }, false],
  ])('%j → %s', (predicate, expected) => {
    expect(evaluate(predicate, scope)).toBe(expected);
  });

  it.each(['gt', 'gte', 'lt', 'lte'] as const)('%s holds only between numbers', (op) => {
    expect(evaluate({ path: 'order.status', op, value: 'a' }, scope)).toBe(false);
    expect(evaluate({ path: 'order.total_cents', op, value: '500' }, scope)).toBe(false);
    expect(evaluate({ path: 'order.missing', op, value: 0 }, scope)).toBe(false);
  });

  it('compares against a $ref value', () => {
    expect(
      evaluate({ path: 'order.total_cents', op: 'lte', value: { $ref: 'input.limit' } }, scope),
    ).toBe(true);
    expect(
      evaluate({ path: 'order.total_cents', op: 'gt', value: { $ref: 'input.limit' } }, scope),
    ).toBe(false);
    expect(
      evaluate({ path: 'order.tags.0', op: 'in', value: [{ $ref: 'order.tags.1' }, 'vip'] }, scope),
    ).toBe(true);
    expect(
      evaluate({ path: 'order.status', op: 'eq', value: { $ref: 'order.status' } }, scope),
    ).toBe(true);
  });

  it('treats a missing path as neither equal to a value nor comparable', () => {
    expect(evaluate({ path: 'order.missing', op: 'eq', value: null }, scope)).toBe(false);
    expect(evaluate({ path: 'order.missing', op: 'eq', value: 0 }, scope)).toBe(false);
    expect(evaluate({ path: 'order.missing', op: 'ne', value: 'paid' }, scope)).toBe(true);
    expect(evaluate({ path: 'order.missing', op: 'in', value: ['paid'] }, scope)).toBe(false);
    expect(evaluate({ path: 'nothing.here', op: 'exists' }, scope)).toBe(false);
    expect(
      evaluate({ path: 'order.total_cents', op: 'gt', value: { $ref: 'input.missing' } }, scope),
    ).toBe(false);
  });
});

describe('evaluate: combinators', () => {
  const yes: Predicate = { path: 'order.status', op: 'eq', value: 'paid' };
  const no: Predicate = { path: 'order.status', op: 'eq', value: 'void' };

  it('all holds when every part holds, and for none', () => {
    expect(evaluate({ all: [yes, yes] }, scope)).toBe(true);
    expect(evaluate({ all: [yes, no] }, scope)).toBe(false);
    expect(evaluate({ all: [] }, scope)).toBe(true);
  });

  it('any holds when some part holds, and never for none', () => {
    expect(evaluate({ any: [no, yes] }, scope)).toBe(true);
    expect(evaluate({ any: [no, no] }, scope)).toBe(false);
    expect(evaluate({ any: [] }, scope)).toBe(false);
  });

  it('not negates', () => {
    expect(evaluate({ not: yes }, scope)).toBe(false);
    expect(evaluate({ not: no }, scope)).toBe(true);
    expect(evaluate({ not: { not: yes } }, scope)).toBe(true);
  });

  it('some holds when an element satisfies where, reading it as item', () => {
    expect(
      evaluate(
        { some: { path: 'order.items', where: { path: 'item.qty', op: 'gt', value: 2 } } },
        scope,
      ),
    ).toBe(true);
    expect(
      evaluate(
        { some: { path: 'order.items', where: { path: 'item.qty', op: 'gt', value: 3 } } },
        scope,
      ),
    ).toBe(false);
    expect(
      evaluate(
        { some: { path: 'order.tags', where: { path: 'item', op: 'eq', value: 'eu' } } },
        scope,
      ),
    ).toBe(true);
  });

  it('some lets where read the rest of the scope too', () => {
    const where: Predicate = {
      all: [
        { path: 'item.sku', op: 'eq', value: 'b' },
        { path: 'item.qty', op: 'lte', value: { $ref: 'input.limit' } },
      ],
    };

    expect(evaluate({ some: { path: 'order.items', where } }, scope)).toBe(true);
  });

  it('some is false for a missing path, a non-array and an empty array', () => {
    const where: Predicate = { path: 'item', op: 'exists' };

    expect(evaluate({ some: { path: 'order.missing', where } }, scope)).toBe(false);
    expect(evaluate({ some: { path: 'order.address', where } }, scope)).toBe(false);
    expect(evaluate({ some: { path: 'empty', where } }, { empty: [] })).toBe(false);
  });

  it('nests', () => {
    const p: Predicate = {
      all: [
        { any: [no, { not: no }] },
        {
          some: {
            path: 'order.items',
            where: { not: { path: 'item.sku', op: 'in', value: ['a'] } },
          },
        },
      ],
    };

    expect(evaluate(p, scope)).toBe(true);
  });
});

describe('predicateSchema', () => {
  it('accepts well-formed predicates', () => {
    const p = {
      all: [
        { not: { path: 'a', op: 'exists' } },
        { some: { path: 'b', where: { path: 'item', op: 'in', value: [1, { $ref: 'c' }] } } },
      ],
    };

    expect(predicateSchema.safeParse(p).success).toBe(true);
  });

  it.each([
    { path: 'a', op: 'like' },
    { path: '', op: 'eq' },
    { path: 'a', op: 'eq', extra: 1 },
    { all: 'x' },
    { some: { path: 'a' } },
    { path: 'a', op: 'eq', value: { notRef: 'x' } },
  ])('rejects %j', (p) => {
    expect(predicateSchema.safeParse(p).success).toBe(false);
  });
});

describe('describePredicate', () => {
  it('renders every form', () => {
    const p: Predicate = {
      all: [
        { path: 'fresh.status', op: 'eq', value: 'paid' },
        { any: [{ path: 'a', op: 'exists' }, { not: { path: 'b', op: 'lt', value: 3 } }] },
        {
          some: {
            path: 'items',
            where: { path: 'item.qty', op: 'gt', value: { $ref: 'input.min' } },
          },
        },
      ],
    };

    expect(describePredicate(p)).toBe(
      'fresh.status eq "paid" and (a exists or not (b lt 3)) and some items where item.qty gt {"$ref":"input.min"}',
    );
  });
});

describe('evaluate: absent values and object equality', () => {
  it('never treats two absent paths as equal', () => {
    expect(evaluate({ path: 'nope', op: 'eq', value: { $ref: 'nada' } }, scope)).toBe(false);
    expect(evaluate({ path: 'nope', op: 'eq' }, scope)).toBe(false);
    expect(evaluate({ path: 'nope', op: 'ne', value: 1 }, scope)).toBe(true);
    expect(evaluate({ path: 'nope', op: 'in', value: [null] }, scope)).toBe(false);
  });

  it('compares objects whatever their key order', () => {
    const s: Scope = { a: { x: 1, y: 2 }, b: { y: 2, x: 1 } };
    expect(evaluate({ path: 'a', op: 'eq', value: { $ref: 'b' } }, s)).toBe(true);
  });

  it('reads own data only, not inherited properties', () => {
    expect(readPath({ x: {} }, 'x.constructor')).toBeUndefined();
    expect(readPath({ x: {} }, 'x.toString')).toBeUndefined();
    expect(evaluate({ path: 'x.__proto__', op: 'exists' }, { x: {} })).toBe(false);
    expect(readPath({ list: [1, 2, 3] }, 'list.length')).toBe(3);
  });
});

/** `scope` behind a proxy that counts how often its keys are listed (as a copy must). */
function counted(base: Scope): { scope: Scope; listings: () => number } {
  let listings = 0;
  const scope = new Proxy(base, {
    ownKeys: (target) => {
      listings++;
      return Reflect.ownKeys(target);
    },
  });
  return { scope, listings: () => listings };
}

describe('extendScope', () => {
  it('reads as the base with the extra entries on top, however deep the layers', () => {
    const fresh = { status: 'refunded' };
    const extended = extendScope(extendScope(scope, { fresh }), { order: { status: 'void' } });

    expect(readPath(extended, 'fresh.status')).toBe('refunded');
    expect(readPath(extended, 'order.status')).toBe('void');
    expect(readPath(extended, 'input.order_id')).toBe('ord_1');
    expect(readPath(extended, 'missing')).toBeUndefined();
    expect(readPath(extended, 'toString')).toBeUndefined();
    expect(resolveValue({ $ref: 'input.limit' }, extended)).toBe(1_000);
    expect(
      evaluate({ path: 'fresh.status', op: 'ne', value: { $ref: 'order.status' } }, extended),
    ).toBe(true);
    // The base is left as it was.
    expect(readPath(scope, 'fresh')).toBeUndefined();
  });

  it('never copies the base: a run’s scope grows with every result it holds', () => {
    const { scope: base, listings } = counted(scope);

    const fresh = evaluate(
      { path: 'fresh.qty', op: 'eq', value: { $ref: 'order.items.1.qty' } },
      extendScope(base, { fresh: { qty: 3 } }),
    );
    // Each item of `some` is judged over the scope plus the item.
    const some = evaluate(
      {
        some: {
          path: 'order.items',
          where: { path: 'item.qty', op: 'gt', value: { $ref: 'order.items.0.qty' } },
        },
      },
      base,
    );

    expect([fresh, some]).toEqual([true, true]);
    expect(listings()).toBe(0);
  });
});

describe('explainFailure', () => {
  it('names each failing condition with the value the scope holds instead', () => {
    const p: Predicate = {
      all: [
        { path: 'refund.amount', op: 'eq', value: 5785 },
        { path: 'refund.status', op: 'eq', value: 'refunded' },
        { path: 'refund.order', op: 'eq', value: { $ref: 'input.order' } },
        { path: 'refund.note', op: 'exists' },
      ],
    };
    const scope = {
      refund: { amount: 25222, status: 'refunded', order: 'ord_2' },
      input: { order: 'ord_1' },
    };
    expect(explainFailure(p, scope)).toBe(
      'refund.amount eq 5785, got 25222; ' +
        'refund.order eq {"$ref":"input.order"} ("ord_1" in this run), got "ord_2"; ' +
        'refund.note exists, got nothing',
    );
  });

  it('shows what each item holds where no item matches, and what an any or a not saw', () => {
    const items = Array.from({ length: 7 }, (_, i) => ({ id: `o${i}`, status: 'paid', x: i }));
    const some: Predicate = {
      some: {
        path: 'orders',
        where: {
          all: [
            { path: 'item.id', op: 'eq', value: 'o1' },
            { path: 'item.status', op: 'eq', value: 'refunded' },
          ],
        },
      },
    };
    expect(explainFailure(some, { orders: items })).toBe(
      'some orders where item.id eq "o1" and item.status eq "refunded", got 7 item(s): ' +
        '{id "o0", status "paid"}, {id "o1", status "paid"}, {id "o2", status "paid"}, ' +
        '{id "o3", status "paid"}, {id "o4", status "paid"}, and 2 more',
    );
    expect(explainFailure(some, { orders: [] })).toMatch(/, got no items$/);
    expect(
      explainFailure(
        { any: [{ path: 'a', op: 'gt', value: 3 }, { not: { path: 'b', op: 'exists' } }] },
        { a: 1, b: 2 },
      ),
    ).toBe('none of (a gt 3, got 1 | b exists holds)');
  });
});

describe('evaluate: equality is canonical JSON equality', () => {
  // Values of every kind, numbers among them that JSON writes alike (-0 and 0, NaN and null).
  const value = fc.oneof(
    fc.jsonValue(),
    fc.constantFrom(0, -0, NaN, Infinity, -Infinity, null, '', '0', true, false),
    fc.double(),
    fc.integer({ min: -3, max: 3 }),
  );

  it('eq, ne and in agree with comparing canonical JSON, whatever the two values', () => {
    // The pairs JSON writes alike though they differ, or differ though they look alike.
    const examples: [unknown, unknown][] = [
      [0, -0],
      [NaN, null],
      [Infinity, null],
      [NaN, NaN],
      [1, '1'],
      [true, 'true'],
      [
        { x: 1, y: 2 },
        { y: 2, x: 1 },
      ],
    ];
    fc.assert(
      fc.property(value, value, (a, b) => {
        const equal = canonicalJson(a) === canonicalJson(b);
        const s = { a, b, list: [b] };
        expect(evaluate({ path: 'a', op: 'eq', value: { $ref: 'b' } }, s)).toBe(equal);
        expect(evaluate({ path: 'a', op: 'ne', value: { $ref: 'b' } }, s)).toBe(!equal);
        expect(evaluate({ path: 'a', op: 'in', value: { $ref: 'list' } }, s)).toBe(equal);
      }),
      { examples },
    );
  });

  it('some skips the holes of a sparse array, as Array.prototype.some does', () => {
    const items: unknown[] = [];
    items[2] = 1;
    const where: Predicate = { path: 'item', op: 'absent' };

    expect(evaluate({ some: { path: 'items', where } }, { items })).toBe(false);
    expect(evaluate({ some: { path: 'items', where } }, { items: [1, undefined] })).toBe(true);
  });
});
