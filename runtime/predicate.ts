import { z } from 'zod';
import { BoundedCache } from './bounded-cache.js';
import { canonicalJson } from './canonical-json.js';

/**
 * A value in a blueprint: a literal, or a reference into the run's scope — `{ $ref: 'order.total_cents' }`
 * reads the result of operation `order`, `{ $ref: 'input.order_id' }` reads the run's input,
 * `{ $ref: 'fresh.status' }` reads the fresh read a precondition just made.
 */
export type ValueExpr = string | number | boolean | null | { $ref: string } | ValueExpr[];
export const valueExprSchema = z.lazy((): z.core.$ZodType<ValueExpr> =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.strictObject({ $ref: z.string().min(1) }),
    z.array(valueExprSchema),
  ]),
);

export const COMPARISONS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'exists',
  'absent',
] as const;

/** Declarative conditions, so blueprints, contracts and scenarios stay data. */
export type Predicate =
  | { path: string; op: (typeof COMPARISONS)[number]; value?: ValueExpr }
  | { all: Predicate[] }
  | { any: Predicate[] }
  | { not: Predicate }
  /** Holds when some element of the array at `path` satisfies `where` (the element is `item`). */
  | { some: { path: string; where: Predicate } };
export const predicateSchema = z.lazy(
  (): z.core.$ZodType<Predicate> =>
    z.union([
      z.strictObject({
        path: z.string().min(1),
        op: z.enum(COMPARISONS),
        value: valueExprSchema.optional(),
      }),
      z.strictObject({ all: z.array(predicateSchema) }),
      z.strictObject({ any: z.array(predicateSchema) }),
      z.strictObject({ not: predicateSchema }),
      z.strictObject({ some: z.strictObject({ path: z.string().min(1), where: predicateSchema }) }),
    ]) as z.core.$ZodType<Predicate>,
);

export type Scope = Readonly<Record<string, unknown>>;

/** Scopes made by {@link extendScope}, each with the base it extends. */
const bases = new WeakMap<object, Scope>();

/**
 * `base` with `extra` on top, as `{ ...base, ...extra }` reads, without copying `base`: a
 * run's scope holds every operation's result, so a copy per check made each step of a long
 * run cost O(n). Only the paths of this module see through to the base; spreading or listing
 * the keys of an extended scope shows `extra` alone. (Not a prototype chain: V8 turns an
 * object made a prototype into a form that costs O(n) to add a property to.)
 *
 * @example
 * ```ts
 * evaluate({ path: 'fresh.status', op: 'eq', value: 'paid' }, extendScope(scope, { fresh }));
 * ```
 */
export function extendScope(base: Scope, extra: Readonly<Record<string, unknown>>): Scope {
  const scope = { ...extra };
  bases.set(scope, base);
  return scope;
}

/** The layer of a scope that holds `key` as its own: the scope, or a base it extends. */
function layerOf(scope: object, key: string): object {
  let layer = scope;
  for (let base = bases.get(layer); base && !Object.hasOwn(layer, key); base = bases.get(layer))
    layer = base;
  return layer;
}

/** Paths split into segments, by path: predicates read the same few paths over and over. */
const segmentsOf = new BoundedCache<string, readonly string[]>(4_096);

/** Reads `a.b[0].c`-style dotted paths (array indices as plain segments: `a.b.0.c`). */
export function readPath(scope: unknown, path: string): unknown {
  const split = segmentsOf.get(path, () => path.split('.'));
  let current: unknown =
    scope !== null && typeof scope === 'object' && bases.has(scope)
      ? layerOf(scope, split[0] ?? '')
      : scope;
  for (const segment of split) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) {
      // Arrays expose their length; nothing else inherited is part of the data.
      if (Array.isArray(current) && segment === 'length') return current.length;
      return undefined;
    }
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

export function resolveValue(expr: ValueExpr | undefined, scope: Scope): unknown {
  if (expr === undefined || expr === null || typeof expr !== 'object') return expr;
  if (Array.isArray(expr)) return expr.map((e) => resolveValue(e, scope));
  return readPath(scope, expr.$ref);
}

/** Scope paths a predicate reads (its own paths and the `$ref`s in its values). */
export function pathsOf(predicate: Predicate | undefined): string[] {
  if (!predicate) return [];
  if ('all' in predicate) return predicate.all.flatMap(pathsOf);
  if ('any' in predicate) return predicate.any.flatMap(pathsOf);
  if ('not' in predicate) return pathsOf(predicate.not);
  if ('some' in predicate)
    return [
      predicate.some.path,
      ...pathsOf(predicate.some.where).filter((p) => !p.startsWith('item.')),
    ];
  return [predicate.path, ...refsOf(predicate.value)];
}

/** Refs an expression reads, for provenance and dependency tracking. */
export function refsOf(expr: unknown): string[] {
  if (expr === null || typeof expr !== 'object') return [];
  if (Array.isArray(expr)) return expr.flatMap(refsOf);
  const record = expr as Record<string, unknown>;
  if (typeof record.$ref === 'string') return [record.$ref];
  return Object.values(record).flatMap(refsOf);
}

export function evaluate(predicate: Predicate, scope: Scope): boolean {
  if ('all' in predicate) return predicate.all.every((p) => evaluate(p, scope));
  if ('any' in predicate) return predicate.any.some((p) => evaluate(p, scope));
  if ('not' in predicate) return !evaluate(predicate.not, scope);
  if ('some' in predicate) {
    const items = readPath(scope, predicate.some.path);
    if (!Array.isArray(items) || items.length === 0) return false;
    // One layer for every item, `item` set in turn: the layer is read only while its item is
    // judged, and nothing keeps it.
    const layer = extendScope(scope, { item: undefined }) as { item: unknown };
    for (let i = 0; i < items.length; i++) {
      // A hole is no item, as `Array.prototype.some` skips it.
      if (!(i in items)) continue;
      layer.item = items[i];
      if (evaluate(predicate.some.where, layer)) return true;
    }
    return false;
  }
  const actual = readPath(scope, predicate.path);
  const expected = resolveValue(predicate.value, scope);
  switch (predicate.op) {
    case 'exists':
      return actual !== undefined && actual !== null;
    case 'absent':
      return actual === undefined || actual === null;
    // A missing value equals nothing, so two absent paths never "match".
    case 'eq':
      return actual !== undefined && same(actual, expected);
    case 'ne':
      return actual === undefined || !same(actual, expected);
    case 'in':
      return (
        actual !== undefined && Array.isArray(expected) && expected.some((e) => same(e, actual))
      );
    case 'gt':
      return typeof actual === 'number' && typeof expected === 'number' && actual > expected;
    case 'gte':
      return typeof actual === 'number' && typeof expected === 'number' && actual >= expected;
    case 'lt':
      return typeof actual === 'number' && typeof expected === 'number' && actual < expected;
    case 'lte':
      return typeof actual === 'number' && typeof expected === 'number' && actual <= expected;
  }
}

/**
 * Equal as canonical JSON, which is what a predicate compares. Two strings, two booleans or two
 * finite numbers have equal canonical JSON exactly when they are `===` (0 and -0 both write
 * `0`), so those skip writing it; anything else (objects, null, NaN, mixed types) is written.
 */
function same(a: unknown, b: unknown): boolean {
  const type = typeof a;
  if (type === typeof b) {
    if (type === 'string' || type === 'boolean') return a === b;
    if (type === 'number' && Number.isFinite(a) && Number.isFinite(b)) return a === b;
  }
  return canonicalJson(a) === canonicalJson(b);
}

/** Human-readable form for events and reports: `fresh.status eq "paid"`. */
export function describePredicate(predicate: Predicate): string {
  if ('all' in predicate) return predicate.all.map(describePredicate).join(' and ');
  if ('any' in predicate) return `(${predicate.any.map(describePredicate).join(' or ')})`;
  if ('not' in predicate) return `not (${describePredicate(predicate.not)})`;
  if ('some' in predicate)
    return `some ${predicate.some.path} where ${describePredicate(predicate.some.where)}`;
  return `${predicate.path} ${predicate.op}${predicate.value === undefined ? '' : ` ${JSON.stringify(predicate.value)}`}`;
}

/** A value found in the scope, short enough for one line of a report. */
function found(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** How many items of an array a failed `some` shows. */
const ITEMS_SHOWN = 5;

/**
 * Why `predicate` does not hold in `scope`: each condition that fails, with the value the scope
 * actually holds beside what it expected — a report that says only "expected X" leaves the
 * reader to dig the actual value out of the world. For a `some`, the values each item holds at
 * the paths the condition reads.
 *
 * @example
 * ```ts
 * explainFailure({ path: 'refund.amount', op: 'eq', value: 5785 }, { refund: { amount: 25222 } });
 * // 'refund.amount eq 5785, got 25222'
 * ```
 */
export function explainFailure(predicate: Predicate, scope: Scope): string {
  if ('all' in predicate)
    return predicate.all
      .filter((p) => !evaluate(p, scope))
      .map((p) => explainFailure(p, scope))
      .join('; ');
  if ('any' in predicate)
    return `none of (${predicate.any.map((p) => explainFailure(p, scope)).join(' | ')})`;
  if ('not' in predicate) return `${describePredicate(predicate.not)} holds`;
  if ('some' in predicate) {
    const { path, where } = predicate.some;
    const items = readPath(scope, path);
    const head = `some ${path} where ${describePredicate(where)}`;
    if (!Array.isArray(items)) return `${head}, got ${found(items)}`;
    if (items.length === 0) return `${head}, got no items`;
    const read = [...new Set(pathsOf(where).filter((p) => p.startsWith('item.')))];
    const shown = items.slice(0, ITEMS_SHOWN).map((item: unknown) => {
      const values = read.map((p) => `${p.slice(5)} ${found(readPath({ item }, p))}`);
      return values.length > 0 ? `{${values.join(', ')}}` : found(item);
    });
    const more = items.length > ITEMS_SHOWN ? `, and ${items.length - ITEMS_SHOWN} more` : '';
    return `${head}, got ${items.length} item(s): ${shown.join(', ')}${more}`;
  }
  const actual = found(readPath(scope, predicate.path));
  const refs = refsOf(predicate.value);
  const resolved =
    refs.length > 0 ? ` (${found(resolveValue(predicate.value, scope))} in this run)` : '';
  return `${describePredicate(predicate)}${resolved}, got ${actual}`;
}
