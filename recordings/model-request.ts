import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { canonicalJson } from '../runtime/canonical-json.js';
import { DEFAULT_REDACTION, redact, type RedactOptions } from './redact.js';

/**
 * Tool definitions are schemas: a property named `approval_token` is a name, not a secret.
 * Only secrets written inside their strings (a key pasted into a description) are removed.
 */
export const TOOL_REDACTION: RedactOptions = { keys: [], patterns: DEFAULT_REDACTION.patterns };

/**
 * A request's tools and settings as canonical JSON, secrets redacted: the form a model
 * cassette stores and replay compares. The prompt goes apart, as a delta (`message-delta.ts`);
 * the abort signal and headers are transport, not request (headers carry the key).
 */
export function requestShape(params: LanguageModelV3CallOptions): {
  tools: string;
  settings: string;
} {
  const settings: Record<string, unknown> = {
    maxOutputTokens: params.maxOutputTokens,
    temperature: params.temperature,
    stopSequences: params.stopSequences,
    topP: params.topP,
    topK: params.topK,
    presencePenalty: params.presencePenalty,
    frequencyPenalty: params.frequencyPenalty,
    responseFormat: params.responseFormat,
    seed: params.seed,
    toolChoice: params.toolChoice,
    providerOptions: params.providerOptions,
  };
  return {
    tools: canonicalJson(redact(params.tools ?? [], TOOL_REDACTION)),
    // JSON drops the options left unset, so an absent option and an undefined one are equal.
    settings: canonicalJson(redact(JSON.parse(JSON.stringify(settings)) as unknown)),
  };
}
