/**
 * A cache of values worked out from a key, for pure work repeated with the same few keys
 * (paths read by predicates, tool-schema texts, field names). It keeps at most `limit`
 * entries and empties itself when full: the keys in use come back at once, and a run of
 * one-off keys cannot grow it without bound.
 *
 * @example
 * ```ts
 * const splits = new BoundedCache<string, string[]>(4_096);
 * const segments = splits.get('world.orders.0', () => 'world.orders.0'.split('.'));
 * ```
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly limit: number) {}

  /** The value kept for `key`, or `make()`'s, kept. */
  get(key: K, make: () => V): V {
    if (this.entries.has(key)) return this.entries.get(key) as V;
    const value = make();
    if (this.entries.size >= this.limit) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }
}
