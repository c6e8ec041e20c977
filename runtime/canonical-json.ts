/** A stable JSON form (object keys sorted), so equal content always compares and hashes the same. */
export function canonicalJson(value: unknown): string {
  // Plain data (everything parsed from JSON) is copied with its keys in order and written by
  // JSON.stringify without a replacer, which is several times faster: a blueprint is hashed on
  // every start. Anything else (dates, maps, class instances, toJSON, bigint) takes the
  // replacer, whose output is the definition; both give the same text for plain data.
  const sorted = sortedCopy(value, 0);
  return sorted === NOT_PLAIN ? JSON.stringify(value, sortKeys) : JSON.stringify(sorted);
}

/**
 * One request as the wire tells requests apart: the tool and its arguments, canonically. Two
 * calls with equal keys are the same request (a repeat of a failed one is a retry).
 */
export function requestKey(tool: string, args: unknown): string {
  return `${tool}\u0000${canonicalJson(args)}`;
}

function sortKeys(_key: string, v: unknown): unknown {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

const NOT_PLAIN = Symbol('not plain');
/** Deeper than this is left to the replacer, which fails on a cycle as it always has. */
const MAX_DEPTH = 512;

/**
 * A copy of plain data whose objects have their keys inserted in sorted order (as
 * `Object.fromEntries` of the sorted entries would), or `NOT_PLAIN`.
 */
function sortedCopy(value: unknown, depth: number): unknown {
  if (typeof value === 'bigint') return NOT_PLAIN;
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return NOT_PLAIN;
  const proto: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (proto !== Array.prototype) return NOT_PLAIN;
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = sortedCopy(value[i], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    return out;
  }
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const record = value as Record<string, unknown>;
  const keys = sortInPlace(Object.keys(record));
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    // Assigning `__proto__` would set the prototype, not copy the key.
    if (key === '__proto__') return NOT_PLAIN;
    const item = sortedCopy(record[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[key] = item;
  }
  return out;
}

/**
 * Sorts keys as `Array.prototype.sort` does (UTF-16 code unit order). Objects have a handful of
 * keys, where an insertion sort is quicker and, unlike the built-in sort, allocates nothing.
 */
function sortInPlace(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    for (; j >= 0 && (keys[j] as string) > key; j--) keys[j + 1] = keys[j] as string;
    keys[j + 1] = key;
  }
  return keys;
}
