import { describe, expect, it } from 'vitest';
import { seededData } from '../../../scenarios/world/seeded-data.js';

describe('seededData', () => {
  it('generates once per seed and options, and hands out the same frozen data', () => {
    let made = 0;
    const generate = seededData((seed: number, options: { n?: number } = {}) => {
      made++;
      return { seed, rows: Array.from({ length: options.n ?? 2 }, (_, i) => ({ i })) };
    });

    const first = generate(1);
    const again = generate(1);
    const other = generate(1, { n: 3 });

    expect(again).toBe(first);
    expect(other.rows).toHaveLength(3);
    expect(made).toBe(2);
    expect(Object.isFrozen(first.rows[0])).toBe(true);
    expect(() => {
      (first.rows as { i: number }[]).push({ i: 9 });
    }).toThrow(TypeError);
  });

  it('forgets the least recently used beyond its size', () => {
    let made = 0;
    const generate = seededData((seed: number) => ({ seed, n: ++made }), 2);

    generate(1);
    generate(2);
    generate(1);
    generate(3); // evicts 2, the least recently used

    expect(generate(1).n).toBe(1);
    expect(generate(2).n).toBe(4);
  });
});
