import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidInputError } from '../runtime/errors.js';
import { parseInput } from '../runtime/validate.js';
import { scenarioSchema, type Scenario } from './scenario.js';

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
      module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
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
  return candidates.map(([name, value]) =>
    parseInput(scenarioSchema, value, `scenario file ${path} (${name})`),
  );
}
