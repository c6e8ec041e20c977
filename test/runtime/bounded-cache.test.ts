import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../runtime/bounded-cache.js';

describe('BoundedCache', () => {
  it('works a key out once and gives the kept value after', () => {
    const cache = new BoundedCache<string, number>(4);
    let made = 0;
    const make = () => ++made;
    expect(cache.get('a', make)).toBe(1);
    expect(cache.get('a', make)).toBe(1);
    expect(cache.get('b', make)).toBe(2);
    expect(made).toBe(2);
  });

  it('keeps a value that is undefined or false as kept, not as missing', () => {
    const cache = new BoundedCache<string, boolean | undefined>(4);
    let made = 0;
    cache.get('no', () => (made++, false));
    cache.get('none', () => (made++, undefined));
    cache.get('no', () => (made++, true));
    cache.get('none', () => (made++, true));
    expect(made).toBe(2);
  });

  it('empties itself when full, so one-off keys cannot grow it without bound', () => {
    const cache = new BoundedCache<number, number>(2);
    let made = 0;
    for (const key of [1, 2, 3]) cache.get(key, () => ++made);
    // 3 arrived when 1 and 2 filled it: only 3 is kept, so 1 is worked out again.
    expect(cache.get(3, () => ++made)).toBe(3);
    expect(cache.get(1, () => ++made)).toBe(4);
  });
});
