import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ModelSetup } from './model-setup.js';
import { DEFAULT_KEY_ENV } from './provider-keys.js';

/**
 * The provider's language model for a setup, through the AI SDK. The key is read from the
 * environment now, never stored in the setup, a record or a cassette.
 */
export function openProviderModel(setup: ModelSetup): LanguageModelV3 {
  if (setup.languageModel) return setup.languageModel;
  const keyEnv = setup.apiKeyEnv ?? DEFAULT_KEY_ENV[setup.provider];
  const apiKey = keyEnv === undefined ? undefined : process.env[keyEnv];
  const baseURL = setup.baseURL;
  switch (setup.api) {
    case 'openai':
      return createOpenAI({
        ...(apiKey === undefined ? {} : { apiKey }),
        ...(baseURL === undefined ? {} : { baseURL }),
      }).chat(setup.modelId);
    case 'anthropic':
      return createAnthropic({
        ...(apiKey === undefined ? {} : { apiKey }),
        ...(baseURL === undefined ? {} : { baseURL }),
      })(setup.modelId);
    case 'openai-compatible':
      return createOpenAICompatible({
        name: setup.provider,
        baseURL: baseURL ?? '',
        ...(apiKey === undefined ? {} : { apiKey }),
      }).chatModel(setup.modelId);
  }
}
