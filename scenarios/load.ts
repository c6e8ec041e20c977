import { readFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import type { Check } from '../runtime/blueprint.js';
import { InvalidInputError } from '../runtime/errors.js';
import { dependenciesOf } from '../runtime/scripted-planner.js';
import { parseInput } from '../runtime/validate.js';
import { validateFaultPlan } from './engine.js';
import { WORLDS } from './library/worlds.js';
import { RECORDED_WORLD } from './world/recorded-world.js';
import { scenarioSchema, type Scenario } from './scenario.js';
import { importUserModule } from './user-module.js';
import { VirtualClock } from './virtual-clock.js';
import type { World } from './world/world.js';

function looksLikeScenario(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && 'id' in value && 'blueprint' in value;
}

/**
 * Loads scenarios from a file: a TypeScript or JavaScript module (every export that is a
 * scenario, `defineScenario` or plain object) or a JSON file (one scenario or an array). Each
 * is validated; a mistake names the file, the export and the field.
 *
 * @example
 * ```ts
 * const scenarios = await loadScenarioFile('scenarios/my-refund.ts');
 * ```
 */
export async function loadScenarioFile(path: string): Promise<Scenario[]> {
  const file = resolve(path);
  let candidates: [string, unknown][];
  if (extname(file) === '.json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw new InvalidInputError(
        `scenario file ${path}`,
        [error instanceof Error ? error.message : String(error)],
        { cause: error },
      );
    }
    candidates = (Array.isArray(parsed) ? parsed : [parsed]).map((v, i) => [
      Array.isArray(parsed) ? `[${i}]` : '(file)',
      v,
    ]);
  } else {
    let module: Record<string, unknown>;
    try {
      module = await importUserModule(file);
    } catch (error) {
      if (error instanceof InvalidInputError) throw error;
      throw new InvalidInputError(
        `scenario file ${path}`,
        [error instanceof Error ? error.message : String(error)],
        { cause: error },
      );
    }
    candidates = Object.entries(module).filter(([, v]) => looksLikeScenario(v));
  }
  if (candidates.length === 0)
    throw new InvalidInputError(`scenario file ${path}`, [
      'exports no scenario (an object with an id and a blueprint)',
    ]);
  return candidates.map(([name, value]) => {
    const source = `scenario file ${path} (${name})`;
    const scenario = parseInput(scenarioSchema, besideFile(value, file), source);
    checkScenario(scenario, source);
    return scenario;
  });
}

/**
 * A recorded world's cassette named by a relative path is found beside the scenario file, as
 * an import is, not wherever the command happens to run: the path is made absolute here.
 */
function besideFile(value: unknown, file: string): unknown {
  if (!looksLikeScenario(value)) return value;
  const world = value.world as { name?: unknown; options?: Record<string, unknown> } | undefined;
  const cassette = world?.options?.cassette;
  if (world?.name !== RECORDED_WORLD || typeof cassette !== 'string' || isAbsolute(cassette))
    return value;
  return {
    ...value,
    world: { ...world, options: { ...world.options, cassette: resolve(dirname(file), cassette) } },
  };
}

/**
 * A fresh instance of the scenario's world (its tools and fault support), or an error naming
 * `world.name` and the worlds there are.
 */
export function worldOf(scenario: Scenario, source = `scenario ${scenario.id}`): World<unknown> {
  const factory = WORLDS[scenario.world.name];
  if (!factory) {
    throw new InvalidInputError(source, [
      `world.name: unknown world "${scenario.world.name}" (known: ${Object.keys(WORLDS).join(', ')})`,
    ]);
  }
  return factory.create({
    ...scenario.world.options,
    seed: scenario.world.seed,
    clock: new VirtualClock(),
  });
}

/**
 * Checks what the schema alone cannot, before anything runs: the world exists and has every
 * tool the scenario names (steps, checks, setup, the contract's authority); every step's
 * `$ref`s name the input or an operation of the blueprint; every fault plan can fire in that
 * world. Without it such a scenario runs and fails (or passes) for a reason that is only a
 * typo. Throws {@link InvalidInputError} naming `source` and each field.
 *
 * @example
 * ```ts
 * checkScenario(scenario, 'scenario file mine.json ((file))');
 * ```
 */
export function checkScenario(scenario: Scenario, source = `scenario ${scenario.id}`): void {
  const world = worldOf(scenario, source);
  const tools = new Set(world.tools().map((t) => t.name));
  const known = [...tools].join(', ');
  const issues: string[] = [];
  const tool = (at: string, name: string): void => {
    if (!tools.has(name))
      issues.push(`${at}: world ${world.name} has no tool "${name}" (it has: ${known})`);
  };
  const checks = (at: string, list: readonly Check[]): void => {
    list.forEach((c, i) => {
      tool(`${at}[${i}].read.tool`, c.read.tool);
    });
  };
  scenario.world.setup.forEach((call, i) => {
    tool(`world.setup[${i}].tool`, call.tool);
  });
  for (const name of Object.keys(scenario.contract.authority.tools))
    tool(`contract.authority.tools.${name}`, name);
  const operations = new Set(scenario.blueprint.operations.map((o) => o.id));
  scenario.blueprint.operations.forEach((op, i) => {
    const at = `blueprint.operations[${i}]`;
    tool(`${at}.tool`, op.tool);
    if (op.alreadyDone) tool(`${at}.alreadyDone.read.tool`, op.alreadyDone.read.tool);
    checks(`${at}.preconditions`, op.preconditions);
    checks(`${at}.postconditions`, op.postconditions);
    checks(`${at}.citations`, op.citations);
    if (op.reconcile) tool(`${at}.reconcile.read.tool`, op.reconcile.read.tool);
    if (op.compensate) tool(`${at}.compensate.tool`, op.compensate.tool);
    // A step reads the input and the results of operations; any other root resolves to nothing.
    for (const ref of dependenciesOf(op)) {
      if (!operations.has(ref))
        issues.push(
          `${at} (${op.id}): $ref "${ref}" names no operation of the blueprint (operations: ${[...operations].join(', ')}; or input)`,
        );
    }
  });
  checks('blueprint.completion', scenario.blueprint.completion);
  scenario.contract.evidenceRequired.forEach((e, i) => {
    if (!operations.has(e.operation))
      issues.push(
        `contract.evidenceRequired[${i}].operation: no operation "${e.operation}" in the blueprint`,
      );
  });
  if (issues.length > 0) throw new InvalidInputError(source, issues);
  for (const plan of scenario.faultPlans) validateFaultPlan(scenario, plan, world, source);
}
