import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { faultPlanSchema, type FaultPlan } from '../faults/catalog.js';
import { InvalidInputError } from '../runtime/errors.js';
import { parseInput } from '../runtime/validate.js';
import { validateFaultPlan } from './engine.js';
import { worldOf } from './load.js';
import type { Scenario } from './scenario.js';

/**
 * A regression file: a scenario named by id, with the seed and the fault plan that once broke
 * an agent. JSON, so exploration can write it and people can read and diff it.
 *
 * @example
 * ```json
 * { "format": "faultline-regression", "version": 1, "scenario": "refunds/partial-refund",
 *   "seed": 1234, "faultPlan": { "id": "found-1", "faults": [ … ] } }
 * ```
 */
export const regressionSchema = z.strictObject({
  format: z.literal('faultline-regression'),
  version: z.literal(1),
  scenario: z.string().min(1),
  seed: z.number().int().nonnegative(),
  faultPlan: faultPlanSchema,
  note: z.string().optional(),
});
export type Regression = z.infer<typeof regressionSchema>;

/** A regression resolved against the scenarios it names. */
export interface RegressionCase {
  file: string;
  scenario: Scenario;
  seed: number;
  faultPlan: FaultPlan;
}

/** Loads one regression file, refusing it (naming file and field) if it is malformed or names an unknown scenario. */
export async function loadRegressionFile(
  file: string,
  scenarios: readonly Scenario[],
): Promise<RegressionCase> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new InvalidInputError(
      `regression file ${file}`,
      [error instanceof Error ? error.message : String(error)],
      { cause: error },
    );
  }
  const regression = parseInput(regressionSchema, json, `regression file ${file}`);
  const scenario = scenarios.find((s) => s.id === regression.scenario);
  if (!scenario) {
    throw new InvalidInputError(`regression file ${file}`, [
      `scenario: no scenario "${regression.scenario}" (known: ${scenarios.map((s) => s.id).join(', ')})`,
    ]);
  }
  // Checked now, not when its case is reached at the end of a suite.
  validateFaultPlan(scenario, regression.faultPlan, worldOf(scenario), `regression file ${file}`);
  return { file, scenario, seed: regression.seed, faultPlan: regression.faultPlan };
}

/** Every `*.json` regression in a folder (none when the folder does not exist), in name order. */
export async function loadRegressions(
  dir: string,
  scenarios: readonly Scenario[],
): Promise<RegressionCase[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return [];
  }
  return Promise.all(names.map((n) => loadRegressionFile(join(dir, n), scenarios)));
}
