import { english, Faker, type LocaleDefinition } from './faker.js';
import { canonicalJson } from '../../runtime/canonical-json.js';

/** Freezes a value and everything it holds, so a cached copy can be shared safely. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Memoizes a world's data generator. Seeded data is a pure function of its arguments (the
 * same seed gives the same records, byte for byte), and generating it with faker costs more
 * than the tool calls of a whole run — exploration boots thousands of worlds from one seed.
 * The cached data is deep-frozen, so a world that wrote to it instead of copying would fail
 * loudly rather than change every later world. Keeps the `size` most recent argument lists.
 *
 * @example
 * ```ts
 * export const generateRefundsData = seededData((seed: number) => generate(seed));
 * ```
 */
export function seededData<A extends unknown[], T>(
  generate: (...args: A) => T,
  size = 32,
): (...args: A) => T {
  const cache = new Map<string, T>();
  return (...args: A): T => {
    const key = canonicalJson(args);
    const hit = cache.get(key);
    if (hit !== undefined) {
      // Most recent last: the oldest entry is the first one evicted.
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const data = deepFreeze(generate(...args));
    cache.set(key, data);
    if (cache.size > size) cache.delete(cache.keys().next().value as string);
    return data;
  };
}

/**
 * A Faker seeded from a world's seed on a stream of its own (`[seed, stream]`), apart from the
 * sequence its data was drawn from, made on the first call: a Faker costs more to make than most
 * runs spend in a world, and few runs draw anything after the world is seeded (a colleague's
 * edit, a ticket filed elsewhere).
 *
 * @example
 * ```ts
 * private readonly colleague = lazyFaker(() => this.seed, 1);
 * const email = this.colleague().internet.email();
 * ```
 */
export function lazyFaker(
  seed: () => number,
  stream: number,
  locale: LocaleDefinition[] = [english],
): () => Faker {
  let faker: Faker | undefined;
  return (): Faker => {
    if (faker === undefined) {
      faker = new Faker({ locale });
      faker.seed([seed(), stream]);
    }
    return faker;
  };
}
