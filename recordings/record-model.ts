import {
  APICallError,
  type LanguageModelV3Content,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3Middleware,
  type SharedV3ProviderMetadata,
} from '@ai-sdk/provider';
import {
  FAULTLINE_METADATA,
  failedCallLatency,
  type FaultlineCallMetadata,
} from '../models/meter.js';
import { messageDeltas } from './message-delta.js';
import {
  MODEL_CASSETTE_FORMAT,
  MODEL_CASSETTE_VERSION,
  modelCassettePath,
  saveModelCassette,
  type ModelCassette,
  type RecordedModelCall,
  type RecordedModelFailure,
  type RecordedModelReply,
} from './model-cassette.js';
import { requestShape } from './model-request.js';
import { redact, redactUrl } from './redact.js';

export interface RecordModelOptions {
  /** The `--record-model` folder; the run's cassette is written there. */
  dir: string;
  runId: string;
  /** `PROVIDER:MODEL` as given to `--model`. */
  model: string;
  /** The provider's name, to name each call's model as `provider:model`. */
  provider: string;
}

/**
 * A model layer, directly above the provider, that writes every call of one run to its
 * cassette: the request (a delta on the previous one), the provider's untouched reply or
 * error, usage and latency. The file is rewritten (atomically) after every call, so a run
 * that crashes or hangs still leaves every call it made. Secrets are redacted; the key never
 * reaches the layer (it travels in headers, which are not recorded).
 *
 * The measured latency is handed up as `providerMetadata.faultline.latencyMs`, as replay
 * hands up the recorded one, so a recorded run's trajectory is the replayed run's.
 *
 * @example
 * ```ts
 * wrapLanguageModel({ model: provider, middleware: recordModelMiddleware({ dir, runId, model: 'openai:gpt-4o-mini', provider: 'openai' }) });
 * ```
 */
export function recordModelMiddleware(options: RecordModelOptions): LanguageModelV3Middleware {
  const file = modelCassettePath(options.dir, options.runId);
  // A slot per call in the order made; a call still out is a hole, and only the calls before
  // the first hole are written (each request is a delta on the one before it).
  const calls: (RecordedModelCall | undefined)[] = [];
  const delta = messageDeltas();
  let tools: string | undefined;
  // Calls may overlap (an agent may ask twice at once): writes go one after another.
  let writing: Promise<void> = Promise.resolve();
  const save = (): Promise<void> => {
    const done = calls.indexOf(undefined);
    const cassette: ModelCassette = {
      format: MODEL_CASSETTE_FORMAT,
      version: MODEL_CASSETTE_VERSION,
      runId: options.runId,
      model: options.model,
      calls: (done < 0 ? calls : calls.slice(0, done)) as RecordedModelCall[],
    };
    writing = writing.then(() => saveModelCassette(file, cassette));
    return writing;
  };
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const shape = requestShape(params);
      const request = {
        ...delta(params.prompt),
        ...(shape.tools === tools ? {} : { tools: JSON.parse(shape.tools) as unknown[] }),
        settings: JSON.parse(shape.settings) as unknown,
      } as RecordedModelCall['request'];
      tools = shape.tools;
      // Numbered now: a call made while another is out keeps the order it was made in.
      const slot = calls.length;
      calls.push(undefined);
      const call = { index: slot + 1, modelId: `${options.provider}:${model.modelId}`, request };
      const started = performance.now();
      let result: LanguageModelV3GenerateResult;
      try {
        result = await doGenerate();
      } catch (error) {
        const latencyMs = Math.round(performance.now() - started);
        calls[slot] = { ...call, error: failureOf(error), latencyMs };
        if (typeof error === 'object' && error !== null) failedCallLatency.set(error, latencyMs);
        await save();
        throw error;
      }
      const latencyMs = Math.round(performance.now() - started);
      calls[slot] = { ...call, reply: replyOf(result), latencyMs };
      await save();
      return { ...result, providerMetadata: withLatency(result.providerMetadata, latencyMs) };
    },
  };
}

/** The result's provider metadata with the latency the meter is to report. */
export function withLatency(
  metadata: SharedV3ProviderMetadata | undefined,
  latencyMs: number,
): SharedV3ProviderMetadata {
  return {
    ...metadata,
    [FAULTLINE_METADATA]: {
      ...(metadata?.[FAULTLINE_METADATA] as FaultlineCallMetadata | undefined),
      latencyMs,
    },
  };
}

function replyOf(result: LanguageModelV3GenerateResult): RecordedModelReply {
  const { [FAULTLINE_METADATA]: _ours, ...metadata } = result.providerMetadata ?? {};
  const response = result.response;
  return redact(
    JSON.parse(
      JSON.stringify({
        content: result.content.map(contentOf),
        finishReason: result.finishReason,
        usage: result.usage,
        ...(Object.keys(metadata).length > 0 ? { providerMetadata: metadata } : {}),
        ...(response
          ? {
              response: {
                id: response.id,
                modelId: response.modelId,
                timestamp: response.timestamp?.toISOString(),
              },
            }
          : {}),
        warnings: result.warnings,
      }),
    ) as RecordedModelReply,
  );
}

/** A content part as JSON: bytes become base64, which the SDK accepts back as file data. */
function contentOf(part: LanguageModelV3Content): unknown {
  if (part.type === 'file' && part.data instanceof Uint8Array)
    return { ...part, data: Buffer.from(part.data).toString('base64') };
  return part;
}

function failureOf(error: unknown): RecordedModelFailure {
  if (APICallError.isInstance(error)) {
    return redact({
      name: error.name,
      message: error.message,
      url: redactUrl(error.url),
      ...(error.statusCode === undefined ? {} : { statusCode: error.statusCode }),
      ...(error.responseHeaders === undefined
        ? {}
        : { responseHeaders: { ...error.responseHeaders } }),
      ...(error.responseBody === undefined ? {} : { responseBody: error.responseBody }),
      isRetryable: error.isRetryable,
    });
  }
  const named = error instanceof Error ? error : new Error(String(error));
  return redact({ name: named.name, message: named.message });
}
