import type { ModelPrices, ModelSetup, PromptFile } from './model-setup.js';
import { DEFAULT_KEY_ENV } from './provider-keys.js';

/** The APIs a provider may speak. */
export const MODEL_APIS = ['openai', 'anthropic', 'openai-compatible'] as const;
export type ModelApi = (typeof MODEL_APIS)[number];

/** A provider the config names: Ollama, vLLM, LM Studio, a gateway, or a built-in pointed elsewhere. */
export interface ProviderConfig {
  readonly api: ModelApi;
  /** Required for `openai-compatible`; the SDK's default (or `*_BASE_URL`) for the others. */
  readonly baseURL?: string | undefined;
  /** The environment variable holding the key; absent for a built-in: its usual one; else no key. */
  readonly apiKeyEnv?: string | undefined;
}

/** The config's `models` map, as `resolveModelSpec` reads it. */
export interface ModelsConfig {
  readonly providers?: Readonly<Record<string, ProviderConfig>>;
  /** USD per million tokens, by `PROVIDER:MODEL`. */
  readonly prices?: Readonly<Record<string, ModelPrices>>;
  /** The model used when `--model` is not given and the agent calls one. */
  readonly default?: string | undefined;
}

/** The providers faultline knows without configuration. */
export const BUILT_IN_PROVIDERS: Readonly<Record<string, ProviderConfig>> = {
  openai: { api: 'openai', apiKeyEnv: 'OPENAI_API_KEY' },
  anthropic: { api: 'anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY' },
};

/**
 * The environment variable the SDKs themselves read a built-in's base URL from. faultline reads
 * it too, when the config names no base URL, so the URL a run used is the one it records.
 */
const BASE_URL_ENV: Readonly<Record<string, string>> = {
  openai: 'OPENAI_BASE_URL',
  anthropic: 'ANTHROPIC_BASE_URL',
};

export interface ModelSpecInput {
  /** `PROVIDER:MODEL` as given. */
  readonly spec: string;
  readonly models?: ModelsConfig;
  /** Where keys and base URLs are looked up (only whether a key is set is read, never kept). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly prompt?: PromptFile;
  readonly temperature?: number;
  readonly seed?: number;
  readonly recordDir?: string;
  readonly replayDir?: string;
}

/** Why a model spec cannot be used; `message` is one line naming what to change. */
export type ModelSpecProblem =
  | { readonly code: 'malformed-spec'; readonly message: string }
  | { readonly code: 'unknown-provider'; readonly message: string }
  | { readonly code: 'no-base-url'; readonly message: string }
  | { readonly code: 'missing-key'; readonly message: string; readonly keyEnv: string };

export type ModelSpecResult =
  | { readonly ok: true; readonly setup: ModelSetup }
  | { readonly ok: false; readonly problem: ModelSpecProblem };

/** The error form of a {@link ModelSpecProblem}. */
export class ModelSpecError extends Error {
  override readonly name = 'ModelSpecError';
  constructor(readonly problem: ModelSpecProblem) {
    super(problem.message);
  }
}

/**
 * The model setup `--model PROVIDER:MODEL` names, checked: the provider is a built-in
 * (`openai`, `anthropic`) or one the config's `models.providers` declares; its key's
 * environment variable is set (unless the run replays recorded replies, which call nothing);
 * prices come from `models.prices[spec]`. The key itself is never read into the setup.
 *
 * @example
 * const result = resolveModelSpec({ spec: 'openai:gpt-4o-mini', env: process.env });
 * if (!result.ok) console.error(result.problem.message);
 */
export function resolveModelSpec(input: ModelSpecInput): ModelSpecResult {
  const env = input.env ?? {};
  const match = /^([A-Za-z0-9][A-Za-z0-9._-]*):(\S+)$/.exec(input.spec);
  if (!match)
    return fail(
      'malformed-spec',
      `--model must be PROVIDER:MODEL, e.g. openai:gpt-4o-mini or anthropic:claude-3-5-haiku-latest (got "${input.spec}")`,
    );
  const provider = match[1] ?? '';
  const modelId = match[2] ?? '';
  const configured = input.models?.providers ?? {};
  const declared = configured[provider] ?? BUILT_IN_PROVIDERS[provider];
  if (!declared) {
    const known = [...new Set([...Object.keys(BUILT_IN_PROVIDERS), ...Object.keys(configured)])];
    return fail(
      'unknown-provider',
      `--model ${input.spec}: unknown provider "${provider}" (known: ${known.join(', ')}); declare it in faultline.config.ts as models.providers.${provider} = { api: 'openai-compatible', baseURL: 'http://localhost:11434/v1' }`,
    );
  }
  const baseEnv = BASE_URL_ENV[declared.api === 'openai-compatible' ? '' : provider];
  const fromEnv = baseEnv === undefined ? undefined : env[baseEnv];
  const baseURL = declared.baseURL ?? (fromEnv === '' ? undefined : fromEnv);
  if (declared.api === 'openai-compatible' && baseURL === undefined)
    return fail(
      'no-base-url',
      `--model ${input.spec}: provider "${provider}" speaks openai-compatible and needs a base URL: set models.providers.${provider}.baseURL in faultline.config.ts`,
    );
  const apiKeyEnv = declared.apiKeyEnv ?? DEFAULT_KEY_ENV[provider];
  if (apiKeyEnv !== undefined && input.replayDir === undefined && !env[apiKeyEnv]) {
    return {
      ok: false,
      problem: {
        code: 'missing-key',
        keyEnv: apiKeyEnv,
        message: `--model ${input.spec}: no API key: set the environment variable ${apiKeyEnv} (keys are read from the environment only, never from files), or replay recorded replies with --replay-model DIR`,
      },
    };
  }
  const prices = input.models?.prices?.[input.spec];
  const setup: ModelSetup = {
    spec: input.spec,
    provider,
    api: declared.api,
    modelId,
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
    ...(prices === undefined ? {} : { prices }),
    ...(input.prompt === undefined ? {} : { prompt: input.prompt }),
    ...(input.temperature === undefined ? {} : { temperature: input.temperature }),
    ...(input.seed === undefined ? {} : { seed: input.seed }),
    ...(input.recordDir === undefined ? {} : { recordDir: input.recordDir }),
    ...(input.replayDir === undefined ? {} : { replayDir: input.replayDir }),
  };
  return { ok: true, setup };
}

/** {@link resolveModelSpec}, throwing a {@link ModelSpecError} when the spec cannot be used. */
export function modelSetupOf(input: ModelSpecInput): ModelSetup {
  const result = resolveModelSpec(input);
  if (!result.ok) throw new ModelSpecError(result.problem);
  return result.setup;
}

function fail(code: 'malformed-spec' | 'unknown-provider' | 'no-base-url', message: string) {
  return { ok: false as const, problem: { code, message } };
}
