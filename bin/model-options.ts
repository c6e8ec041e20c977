import type { ModelSetup } from '../models/model-setup.js';
import { resolveModelSpec } from '../models/model-spec.js';
import { readPromptFile } from '../models/prompt-file.js';
import { CONFIG_FILE, type FaultlineConfig } from './config.js';
import { UsageError } from './usage-error.js';

/** The model options of `run` (and `serve`), as parsed from the command line. */
export interface ModelFlags {
  model?: string | undefined;
  prompt?: string | undefined;
  temperature?: string | undefined;
  'model-seed'?: string | undefined;
  'record-model'?: string | undefined;
  'replay-model'?: string | undefined;
}

/** The `parseArgs` options for {@link ModelFlags}. */
export const MODEL_OPTIONS = {
  model: { type: 'string' },
  prompt: { type: 'string' },
  temperature: { type: 'string' },
  'model-seed': { type: 'string' },
  'record-model': { type: 'string' },
  'replay-model': { type: 'string' },
} as const;

/** The agent the model is for: its name, and whether it calls `run.model` (`exposes.model`). */
export interface ModelAgent {
  readonly name: string;
  readonly callsModel: boolean;
}

/**
 * The model setup the command line and the config name, checked before anything is written:
 * `--model` (else the config's `models.default`, for an agent that calls a model), its
 * provider, key variable, prices, `--prompt` file, `--temperature` and `--model-seed`.
 * Undefined when the agent calls no model. Every problem is a {@link UsageError} of one line.
 */
export function modelSetupFromFlags(
  flags: ModelFlags,
  config: FaultlineConfig,
  agent: ModelAgent,
  options: { configFile?: string | undefined; env?: NodeJS.ProcessEnv } = {},
): ModelSetup | undefined {
  const given = (
    ['model', 'prompt', 'temperature', 'model-seed', 'record-model', 'replay-model'] as const
  ).filter((f) => flags[f] !== undefined);
  if (!agent.callsModel) {
    const first = given[0];
    // Refused, not ignored: a set would record a model that played no part in it.
    if (first !== undefined)
      throw new UsageError(
        `--${first}: agent ${agent.name} does not call a model (it does not declare exposes.model); leave the model options out, or choose an agent that calls one (tool-loop, model-planner)`,
      );
    return undefined;
  }
  const spec = flags.model ?? config.models.default;
  if (spec === undefined)
    throw new UsageError(
      `agent ${agent.name} calls a model: give one with --model PROVIDER:MODEL (e.g. openai:gpt-4o-mini), or set models.default in ${CONFIG_FILE}`,
    );
  const temperature = number('--temperature', flags.temperature, 0, 2);
  const seed = wholeNumber('--model-seed', flags['model-seed']);
  const prompt = flags.prompt === undefined ? undefined : promptFile(flags.prompt);
  const result = resolveModelSpec({
    spec,
    models: config.models,
    env: options.env ?? process.env,
    ...(prompt === undefined ? {} : { prompt }),
    ...(temperature === undefined ? {} : { temperature }),
    ...(seed === undefined ? {} : { seed }),
    ...(flags['record-model'] === undefined ? {} : { recordDir: flags['record-model'] }),
    ...(flags['replay-model'] === undefined ? {} : { replayDir: flags['replay-model'] }),
  });
  if (!result.ok) {
    // A default from the config is blamed on the config's field, not on a flag never given.
    const message =
      flags.model === undefined
        ? result.problem.message.replace(
            /^--model /,
            `config ${options.configFile ?? CONFIG_FILE}: models.default `,
          )
        : result.problem.message;
    throw new UsageError(message);
  }
  return result.setup;
}

/** The words that name a model setup on a replay command (`--model …`, `--prompt …`). */
export function modelWords(setup: ModelSetup | undefined): string[] {
  if (!setup) return [];
  return [
    `--model ${setup.spec}`,
    ...(setup.prompt ? [`--prompt ${setup.prompt.path}`] : []),
    ...(setup.temperature === undefined ? [] : [`--temperature ${String(setup.temperature)}`]),
    ...(setup.seed === undefined ? [] : [`--model-seed ${String(setup.seed)}`]),
  ];
}

function promptFile(path: string) {
  try {
    return readPromptFile(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(
      `--prompt ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, where a prompt file was expected' : 'cannot be read'}`,
      { cause: error },
    );
  }
}

function number(name: string, value: string | undefined, min: number, max: number) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max)
    throw new UsageError(
      `${name} must be a number from ${String(min)} to ${String(max)} (got "${value}")`,
    );
  return n;
}

function wholeNumber(name: string, value: string | undefined) {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`${name} must be a whole number ≥ 0 (got "${value}")`);
  return Number(value);
}
