import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Middleware,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { canonicalJson } from '../runtime/canonical-json.js';
import { redact } from '../recordings/redact.js';
import type { ModelCallRecord } from '../scenarios/trajectory.js';
import { classifyModelError } from './model-error.js';
import type { ModelPrices } from './model-setup.js';

/**
 * What a layer below the meter (a model fault, a cassette) tells it about one call, through
 * the result's provider metadata: the fault that changed it, the recorded latency.
 */
export const FAULTLINE_METADATA = 'faultline';
export interface FaultlineCallMetadata {
  fault?: string;
  latencyMs?: number;
  /** Set by the meter on the result it hands up: the call's cost under the run's prices. */
  costUsd?: number;
}

export interface MeterHooks {
  /** Virtual time and the run's one order of events. */
  now(): number;
  sequence(): number;
  incarnation(): number;
  /** `provider:model` as called. */
  modelId(): string;
  prices?: ModelPrices;
  onCall(call: ModelCallRecord): void;
}

/** Tokens from the provider's reported usage (0 where it reported none). */
export function usageOf(usage: LanguageModelV3Usage | undefined): {
  inputTokens: number;
  outputTokens: number;
} {
  return {
    inputTokens: usage?.inputTokens.total ?? 0,
    outputTokens: usage?.outputTokens.total ?? 0,
  };
}

/** USD for a call's usage under a price list (0 when unpriced). */
export function costOf(
  usage: { inputTokens: number; outputTokens: number },
  prices: ModelPrices | undefined,
): number {
  if (!prices) return 0;
  return (
    (usage.inputTokens * prices.inputPerMillion + usage.outputTokens * prices.outputPerMillion) /
    1_000_000
  );
}

/**
 * The harness's outermost model layer: every call the agent makes is recorded — request (as a
 * delta on the previous one), reply, provider usage, cost, latency — and handed to `onCall`.
 */
export function meterMiddleware(hooks: MeterHooks): LanguageModelV3Middleware {
  let previous: string[] = [];
  let index = 0;
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params }) => {
      const at = hooks.now();
      const order = hooks.sequence();
      const messages = params.prompt.map((m) => canonicalJson(redact(m)));
      let kept = 0;
      while (kept < previous.length && kept < messages.length && previous[kept] === messages[kept])
        kept++;
      previous = messages;
      const request: ModelCallRecord['request'] = {
        kept,
        messages: messages.slice(kept).map((m) => JSON.parse(m) as unknown),
        tools: (params.tools ?? []).map((t) => t.name),
        settings: settingsOf(params),
      };
      const base = {
        index: ++index,
        incarnation: hooks.incarnation(),
        at,
        order,
        modelId: hooks.modelId(),
        request,
      };
      const started = performance.now();
      let result: LanguageModelV3GenerateResult;
      try {
        result = await doGenerate();
      } catch (error) {
        const failure = classifyModelError(error);
        hooks.onCall({
          ...base,
          reply: null,
          error: { class: failure.class, message: redact(failure.message) },
          usage: { inputTokens: 0, outputTokens: 0 },
          costUsd: 0,
          latencyMs: Math.round(performance.now() - started),
          fault: null,
        });
        throw error;
      }
      const note = result.providerMetadata?.[FAULTLINE_METADATA] as
        FaultlineCallMetadata | undefined;
      const usage = usageOf(result.usage);
      const costUsd = costOf(usage, hooks.prices);
      hooks.onCall({
        ...base,
        reply: replyOf(result),
        error: null,
        usage,
        costUsd,
        latencyMs: note?.latencyMs ?? Math.round(performance.now() - started),
        fault: note?.fault ?? null,
      });
      // The agent learns the call's cost the way it learns the rest: from the result (a model
      // planner reports it to the runtime, which enforces the contract's cost budget).
      return {
        ...result,
        providerMetadata: {
          ...result.providerMetadata,
          [FAULTLINE_METADATA]: { ...note, costUsd },
        },
      };
    },
  };
}

function settingsOf(params: LanguageModelV3CallOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (params.temperature !== undefined) out.temperature = params.temperature;
  if (params.seed !== undefined) out.seed = params.seed;
  if (params.maxOutputTokens !== undefined) out.maxOutputTokens = params.maxOutputTokens;
  if (params.responseFormat !== undefined) out.responseFormat = params.responseFormat.type;
  if (params.toolChoice !== undefined) out.toolChoice = params.toolChoice.type;
  return out;
}

function replyOf(result: LanguageModelV3GenerateResult): NonNullable<ModelCallRecord['reply']> {
  let text = '';
  const toolCalls: { id: string; name: string; args: unknown }[] = [];
  for (const part of result.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'tool-call') {
      let args: unknown = part.input;
      try {
        args = JSON.parse(part.input) as unknown;
      } catch {
        // Kept as the string the model sent: a garbled call is what the grader must see.
      }
      toolCalls.push({ id: part.toolCallId, name: part.toolName, args: redact(args) });
    }
  }
  return { text: redact(text), toolCalls, finishReason: result.finishReason.unified };
}
