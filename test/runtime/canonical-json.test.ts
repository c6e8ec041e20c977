import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../runtime/canonical-json.js';

/** The definition: JSON.stringify with every object's entries sorted by key. */
const reference = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v === null || typeof v !== 'object' || Array.isArray(v)
      ? v
      : Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        ),
  );

/** What each side gives, a thrown error standing for its name. */
const outcome = (f: () => string): string => {
  try {
    return f();
  } catch (error) {
    return `threw ${(error as Error).name}`;
  }
};

describe('canonicalJson', () => {
  it('sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { y: [1, { q: 1, p: 2 }], x: 'z' } })).toBe(
      '{"a":{"x":"z","y":[1,{"p":2,"q":1}]},"b":1}',
    );
  });

  it('writes exactly what the definition writes, for JSON data', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes exactly what the definition writes, for anything else a value can hold', () => {
    const anything = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withNullPrototype: true,
      withObjectString: true,
      withSet: true,
      withSparseArray: true,
      withTypedArray: true,
    });

    fc.assert(
      fc.property(anything, (value) => {
        expect(outcome(() => canonicalJson(value))).toBe(outcome(() => reference(value)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('orders numeric keys as an object does, and keeps odd keys and values as JSON does', () => {
    const odd = JSON.parse('{"__proto__": {"b": 1, "a": 2}, "10": 0, "2": 0}') as unknown;
    const values = {
      when: new Date(0),
      gone: undefined,
      fn: () => 1,
      list: [undefined, () => 1, Number.NaN, -0],
      custom: { toJSON: () => ({ z: 1, y: 2 }) },
    };

    expect(canonicalJson(odd)).toBe(reference(odd));
    expect(canonicalJson(odd)).toBe('{"2":0,"10":0,"__proto__":{"a":2,"b":1}}');
    expect(canonicalJson(values)).toBe(reference(values));
  });
});
