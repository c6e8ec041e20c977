import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clonePlain } from '../../../scenarios/world/plain-clone.js';
import { WORLDS } from '../../../scenarios/library/worlds.js';
import { VirtualClock } from '../../../scenarios/virtual-clock.js';

describe('clonePlain', () => {
  it('copies JSON-like data as structuredClone does, sharing nothing with the original', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = clonePlain(value);
        expect(copy).toStrictEqual(structuredClone(value));
        if (value !== null && typeof value === 'object') expect(copy).not.toBe(value);
      }),
    );
  });

  it('keeps undefined properties, -0 and holes, as structuredClone does', () => {
    const holes: number[] = [1];
    holes[2] = 3;
    const value = { a: undefined, b: -0, c: holes };
    const copy = clonePlain(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(Object.is(copy.b, -0)).toBe(true);
    expect(Object.hasOwn(copy, 'a')).toBe(true);
  });

  it('copies an own __proto__ key as a property, never as the prototype', () => {
    const value = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as Record<string, unknown>;
    const copy = clonePlain(value);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(copy).toStrictEqual(structuredClone(value));
  });

  it('hands anything but plain objects and arrays to structuredClone (dates, maps, null prototypes)', () => {
    const value = {
      at: new Date(0),
      index: new Map([['k', { v: 1 }]]),
      bare: Object.assign(Object.create(null) as object, { z: 1 }),
    };
    const copy = clonePlain(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(copy.at).not.toBe(value.at);
    expect(copy.index.get('k')).not.toBe(value.index.get('k'));
  });

  it('refuses what structuredClone refuses (a function)', () => {
    expect(() => clonePlain({ f: () => 1 })).toThrow();
  });

  it("copies every built-in world's seeded state as structuredClone does", () => {
    for (const [name, factory] of Object.entries(WORLDS)) {
      let world;
      try {
        world = factory.create({ seed: 7, clock: new VirtualClock() });
      } catch {
        continue; // a world that needs options of its own (a recording) is not seeded data
      }
      expect(clonePlain(world.state), name).toStrictEqual(structuredClone(world.state));
    }
  });
});
