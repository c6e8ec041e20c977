/**
 * A deep copy of plain data — what a world's state, a ledger effect and a credential's scope
 * are: objects and arrays of strings, numbers, booleans and null. It reads as `structuredClone`
 * (own enumerable keys, `undefined` and `-0` kept) at a tenth of the cost: `structuredClone`
 * serializes and deserializes, and every explored run snapshots its world twice. Anything that
 * is not a plain object or array (a `Date`, a `Map`, a class instance, an object without a
 * prototype) is handed to `structuredClone` itself, so it is copied as before, and what
 * `structuredClone` refuses (a function) is refused.
 *
 * Made for trees of records: a value reached twice is copied twice (`structuredClone` would keep
 * the two references one), a cycle does not end, and an array's own keys beyond its indices are
 * left behind (as JSON leaves them).
 *
 * @example
 * ```ts
 * const start = clonePlain(world.state); // the world moves on; `start` does not
 * ```
 */
export function clonePlain<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (value === null) return null;
  const type = typeof value;
  if (type !== 'object')
    return type === 'function' || type === 'symbol' ? structuredClone(value) : value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const from = value as unknown[];
    const out: unknown[] = new Array<unknown>(from.length);
    for (let i = 0; i < from.length; i++) if (i in from) out[i] = copy(from[i]);
    return out;
  }
  if (proto !== Object.prototype) return structuredClone(value);
  const from = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    // Assigning `__proto__` would set the copy's prototype; JSON.parse makes it an own key.
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: copy(from[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = copy(from[key]);
  }
  return out;
}
