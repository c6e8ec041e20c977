import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { messageDeltas } from '../recordings/message-delta.js';
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
  /** `provider:model` the call went to, once a `model-swap` fault changed it. */
  modelId?: string;
  /** Set by the meter on the result it hands up: the call's cost under the run's prices. */
  costUsd?: number;
}

/**
 * The latency a lower layer measured (or recorded) for a call that failed: an error carries no
 * provider metadata, so the cassette layers note it here for the meter to report.
 */
export const failedCallLatency = new WeakMap<object, number>();

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
  const delta = messageDeltas();
  let index = 0;
  /** The call's identity and request (a delta on the previous one), taken when it starts. */
  const begin = (params: LanguageModelV3CallOptions) => {
    const at = hooks.now();
    const order = hooks.sequence();
    const request: ModelCallRecord['request'] = {
      ...delta(params.prompt),
      tools: (params.tools ?? []).map((t) => t.name),
      settings: settingsOf(params),
    };
    return {
      base: {
        index: ++index,
        incarnation: hooks.incarnation(),
        at,
        order,
        modelId: hooks.modelId(),
        request,
      },
      started: performance.now(),
    };
  };
  const failed = (call: ReturnType<typeof begin>, error: unknown): void => {
    const failure = classifyModelError(error);
    hooks.onCall({
      ...call.base,
      // Read again: a model swapped during this very call (a fault below) is the one called.
      modelId: hooks.modelId(),
      reply: null,
      error: { class: failure.class, message: redact(failure.message) },
      usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: 0,
      latencyMs:
        (typeof error === 'object' && error !== null ? failedCallLatency.get(error) : undefined) ??
        Math.round(performance.now() - call.started),
      fault: null,
    });
  };
  const answered = (
    call: ReturnType<typeof begin>,
    reply: NonNullable<ModelCallRecord['reply']>,
    reported: LanguageModelV3Usage | undefined,
    note: FaultlineCallMetadata | undefined,
  ): number => {
    const usage = usageOf(reported);
    const costUsd = costOf(usage, hooks.prices);
    hooks.onCall({
      ...call.base,
      // A model swapped during this very call (a fault below) names the model it went to.
      modelId: note?.modelId ?? hooks.modelId(),
      reply,
      error: null,
      usage,
      costUsd,
      latencyMs: note?.latencyMs ?? Math.round(performance.now() - call.started),
      fault: note?.fault ?? null,
    });
    return costUsd;
  };
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params }) => {
      const call = begin(params);
      let result: LanguageModelV3GenerateResult;
      try {
        result = await doGenerate();
      } catch (error) {
        failed(call, error);
        throw error;
      }
      const note = result.providerMetadata?.[FAULTLINE_METADATA] as
        FaultlineCallMetadata | undefined;
      const costUsd = answered(call, replyOf(result), result.usage, note);
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
    // A streamed call is recorded when its stream ends: the text and tool calls assembled from
    // the parts, the usage from the finish part. A stream the caller abandons is not recorded.
    wrapStream: async ({ doStream, params }) => {
      const call = begin(params);
      let result: LanguageModelV3StreamResult;
      try {
        result = await doStream();
      } catch (error) {
        failed(call, error);
        throw error;
      }
      let text = '';
      const content: LanguageModelV3GenerateResult['content'] = [];
      let finish: Extract<LanguageModelV3StreamPart, { type: 'finish' }> | undefined;
      let error: unknown;
      let errored = false;
      const meter = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          if (part.type === 'text-delta') text += part.delta;
          else if (part.type === 'tool-call') content.push(part);
          else if (part.type === 'finish') finish = part;
          else if (part.type === 'error' && !errored) {
            errored = true;
            error = part.error;
          }
          controller.enqueue(part);
        },
        flush() {
          if (errored || !finish) {
            failed(call, errored ? error : new Error('the model stream ended without a finish'));
            return;
          }
          const reply = replyOf({
            content: [{ type: 'text', text }, ...content],
            finishReason: finish.finishReason,
          });
          const note = finish.providerMetadata?.[FAULTLINE_METADATA] as
            FaultlineCallMetadata | undefined;
          answered(call, reply, finish.usage, note);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(meter) };
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

function replyOf(
  result: Pick<LanguageModelV3GenerateResult, 'content' | 'finishReason'>,
): NonNullable<ModelCallRecord['reply']> {
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
