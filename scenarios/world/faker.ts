import type { Faker as FakerClass, LocaleDefinition } from '@faker-js/faker';
import { faker as englishFaker } from '@faker-js/faker/locale/en';

/**
 * Faker's class and its English data, reached through `@faker-js/faker/locale/en`: the package's
 * main entry loads all of its sixty-odd locales, about 0.4 CPU-seconds at every start of the
 * command, of each worker thread and each child agent, where the worlds need only English.
 * (The import of the class above is of its type only, and costs nothing at run time.)
 */
export const Faker = englishFaker.constructor as typeof FakerClass;
export type Faker = FakerClass;
export type { LocaleDefinition };

/**
 * English with Faker's locale-neutral `base` data beneath it, as `[en, base]` would give: what
 * `@faker-js/faker/locale/en` is built from. A world's Faker draws from it (`[en]` alone draws
 * the same for every method that works without `base`).
 */
export const english: LocaleDefinition = englishFaker.rawDefinitions;
