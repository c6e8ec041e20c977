import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { AUTONOMY_MODES } from '../runtime/contract.js';
import { InvalidInputError } from '../runtime/errors.js';

/** The promotion ladder, loosest evidence first. */
export const AUTONOMY_LEVELS = [
  'historical-replay',
  'shadow',
  'recommendation',
  'supervised',
  'bounded',
  'expansion',
] as const;
export type AutonomyLevel = (typeof AUTONOMY_LEVELS)[number];

/**
 * The mode whose runs a level is judged on: a gate can never be passed by evidence gathered
 * under looser conditions. Historical replay is judged on runs replayed from cassettes.
 */
export const LEVEL_MODE: Readonly<Record<AutonomyLevel, string>> = {
  'historical-replay': 'replay',
  shadow: 'shadow',
  recommendation: 'recommend',
  supervised: 'supervised',
  bounded: 'bounded',
  expansion: 'bounded',
};

const criteriaSchema = z.strictObject({
  /** Runs in the level's mode needed before anything is judged. */
  minRuns: z.number().int().positive().default(1),
  /** k of the pass^k criteria. */
  k: z.number().int().positive().default(1),
  /** Minimum outcome pass^k. */
  outcomePassK: z.number().min(0).max(1).default(1),
  /** Minimum overall pass^k (outcome, policy, integrity and recovery together). */
  overallPassK: z.number().min(0).max(1).default(0),
  /** Most policy findings allowed across the runs. */
  maxPolicyViolations: z.number().int().nonnegative().default(0),
  /** Most duplicate side effects allowed across the runs. */
  maxDuplicateEffects: z.number().int().nonnegative().default(0),
  /** Minimum share of runs whose recovery grade passed. */
  recoveryPassRate: z.number().min(0).max(1).default(1),
  /** Every fault kind in the suite must have fired at least this often. */
  minFiresPerFaultKind: z.number().int().nonnegative().default(0),
});
export type GateCriteria = z.infer<typeof criteriaSchema>;

export const configSchema = z.strictObject({
  /** Defaults for `faultline run`; command-line options override them. */
  run: z
    .strictObject({
      agent: z.string().optional(),
      mode: z.enum(AUTONOMY_MODES).optional(),
      faults: z.string().optional(),
      trials: z.number().int().positive().optional(),
      seed: z.number().int().nonnegative().optional(),
      workers: z.number().int().positive().optional(),
      reporters: z.array(z.string()).optional(),
      out: z.string().optional(),
      scenarios: z.array(z.string()).optional(),
      regressions: z.string().optional(),
    })
    .default({}),
  /** `faultline compare`: B regresses when a dimension's pass rate drops by more than this. */
  compare: z.strictObject({ maxRegression: z.number().min(0).max(1).default(0) }).default({
    maxRegression: 0,
  }),
  /** `faultline promote`: the criteria of each level (missing levels use the defaults). */
  gates: z.partialRecord(z.enum(AUTONOMY_LEVELS), criteriaSchema).default({}),
});
export type FaultlineConfig = z.infer<typeof configSchema>;

export const CONFIG_FILE = 'faultline.config.ts';

/**
 * Loads `faultline.config.ts` (or `.js`/`.mjs`, or the file given) from the working
 * directory: its default export, checked field by field. No file: the defaults.
 */
export async function loadConfig(path?: string): Promise<FaultlineConfig> {
  const candidates = path ? [path] : [CONFIG_FILE, 'faultline.config.mjs', 'faultline.config.js'];
  const file = candidates.map((c) => resolve(c)).find((c) => existsSync(c));
  if (!file) {
    if (path) throw new InvalidInputError(`config ${path}`, ['(file): no such file']);
    return configSchema.parse({});
  }
  let loaded: unknown;
  try {
    loaded = ((await import(pathToFileURL(file).href)) as { default?: unknown }).default;
  } catch (error) {
    throw new InvalidInputError(`config ${file}`, [
      `(file): cannot be loaded: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    ]);
  }
  const parsed = configSchema.safeParse(loaded ?? {});
  if (!parsed.success) {
    throw new InvalidInputError(
      `config ${file}`,
      parsed.error.issues.map((i) => `${i.path.join('.') || '(default export)'}: ${i.message}`),
    );
  }
  return parsed.data;
}

/** A level's criteria: the config's, else the defaults. */
export function gateCriteria(config: FaultlineConfig, level: AutonomyLevel): GateCriteria {
  return config.gates[level] ?? criteriaSchema.parse({});
}

/**
 * Types a `faultline.config.ts` default export.
 *
 * @example
 * ```ts
 * import { defineConfig } from 'faultline/bin/config';
 * export default defineConfig({ run: { trials: 3 }, gates: { supervised: { k: 3, outcomePassK: 0.9 } } });
 * ```
 */
export function defineConfig(config: z.input<typeof configSchema>): z.input<typeof configSchema> {
  return config;
}
