import type { LanguageModelV3 } from '@ai-sdk/provider';

/** USD per million tokens, as providers publish them. */
export interface ModelPrices {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
}

/** A prompt file: its text, and the content hash that names its version in results. */
export interface PromptFile {
  /** As given (relative to where faultline ran), for reports and replay commands. */
  readonly path: string;
  readonly text: string;
  /** `sha256:` and the first 12 hex digits of the text's hash. */
  readonly hash: string;
}

/**
 * The model behind a model-driven agent, as plain data: a worker thread or a child process
 * rebuilds the same model from it. Keys are never here — only the name of the environment
 * variable that holds one.
 */
export interface ModelSetup {
  /** `PROVIDER:MODEL` as the user named it (`openai:gpt-4o-mini`, `ollama:llama3.1`). */
  readonly spec: string;
  /** The provider's name: `openai`, `anthropic`, or a name from the config's `models`. */
  readonly provider: string;
  /** The API the provider speaks. */
  readonly api: 'openai' | 'anthropic' | 'openai-compatible';
  readonly modelId: string;
  /** The provider's base URL (the SDK's default when absent). */
  readonly baseURL?: string;
  /** The environment variable the API key is read from, at call time; never the key itself. */
  readonly apiKeyEnv?: string;
  /** Prices per million tokens; absent: the model's calls are counted but cost nothing. */
  readonly prices?: ModelPrices;
  /** The system prompt the agent is given (else the agent's default from `prompts/`). */
  readonly prompt?: PromptFile;
  readonly temperature?: number;
  readonly seed?: number;
  /** `--record-model DIR`: every model call is written to cassettes there. */
  readonly recordDir?: string;
  /** `--replay-model DIR`: every model call is answered from cassettes there; a miss is an error. */
  readonly replayDir?: string;
  /**
   * Through the API only (never across threads): a ready AI SDK language model object, used
   * instead of opening `provider`. Cassettes, faults and metering still wrap it.
   */
  readonly languageModel?: LanguageModelV3;
}

/** What a model-driven agent is given besides the model: the settings it calls it with. */
export interface ModelSettings {
  /** The system prompt's text (the `--prompt` file, or undefined for the agent's default). */
  readonly system?: string;
  readonly temperature?: number;
  readonly seed?: number;
}
