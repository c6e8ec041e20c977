import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Content,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamResult,
  type LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { existsSync } from 'node:fs';
import { failedCallLatency } from '../models/meter.js';
import { canonicalJson } from '../runtime/canonical-json.js';
import { FaultlineError } from '../runtime/errors.js';
import { applyDelta, canonicalMessages } from './message-delta.js';
import {
  modelCassettePath,
  readModelCassette,
  type ModelCassette,
  type RecordedModelCall,
} from './model-cassette.js';
import { requestShape } from './model-request.js';
import { withLatency } from './record-model.js';

/** Where a replayed run first asked what its cassette does not hold. */
export interface ModelReplayMissData {
  runId: string;
  /** The cassette file that was (or would have been) read. */
  file: string;
  /** 1-based: the how-many-th model call of the run. */
  call: number;
  /** What differs: the messages, tools or settings sent, the model, or no recording at all. */
  field: 'messages' | 'tools' | 'settings' | 'model' | 'recording';
  /** For `messages`: the index of the first message that differs. */
  at?: number;
  /** The recorded value (canonical JSON, trimmed around the difference), or why there is none. */
  expected: string;
  actual: string;
}

/**
 * A replayed model was asked what its cassette does not hold: the agent left the recorded
 * path, or there is no recording. Never answered by a live call. The message is the block the
 * command prints: run, call, and expected against actual at the first difference.
 */
export class ModelReplayMissError extends FaultlineError<ModelReplayMissData> {
  override readonly name = 'ModelReplayMissError';
  constructor(data: ModelReplayMissData) {
    super('model-replay-miss', formatMiss(data), data, false);
  }
}

function formatMiss(d: ModelReplayMissData): string {
  const where = d.field === 'messages' ? `messages[${d.at ?? 0}]` : d.field;
  return [
    `model replay miss: run ${d.runId}, call ${d.call} (cassette ${d.file})`,
    `  first difference: ${where}`,
    `  expected: ${d.expected}`,
    `  actual:   ${d.actual}`,
  ].join('\n');
}

/** How much of a long request is shown on either side of where it first differs. */
const BEFORE = 60;
const AFTER = 160;

/** Both texts cut to a window around their first differing character, marked with `…`. */
export function trimAroundDifference(
  expected: string,
  actual: string,
): { expected: string; actual: string } {
  let at = 0;
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at++;
  const start = Math.max(0, at - BEFORE);
  const cut = (text: string): string =>
    `${start > 0 ? '…' : ''}${text.slice(start, at + AFTER)}${text.length > at + AFTER ? '…' : ''}`;
  return { expected: cut(expected), actual: cut(actual) };
}

/** A recorded call with its whole request rebuilt, as replay compares it. */
interface ExpectedCall {
  call: RecordedModelCall;
  messages: string[];
  tools: string;
  settings: string;
}

function expand(cassette: ModelCassette): ExpectedCall[] {
  let messages: string[] = [];
  let tools = '[]';
  return cassette.calls.map((call) => {
    // Checked on load: a delta never keeps more than the previous request had.
    messages = applyDelta(messages, call.request) ?? [];
    // Stored as canonical JSON already: written again, the same text replay compares against.
    if (call.request.tools !== undefined) tools = canonicalJson(call.request.tools);
    return { call, messages, tools, settings: canonicalJson(call.request.settings) };
  });
}

export interface ReplayModelOptions {
  /** The `--replay-model` folder. */
  dir: string;
  runId: string;
  /** `PROVIDER:MODEL` the run asks for; a cassette recorded with another is a miss. */
  model: string;
  /** The provider's name and model id the replayed model reports as its own. */
  provider: string;
  modelId: string;
}

/**
 * A language model that answers each call of one run from the run's cassette, in order, with
 * the recorded reply, usage and latency (handed to the meter as
 * `providerMetadata.faultline.latencyMs`), so the run's trajectory is the same on every
 * replay. It replaces the provider: no network, no key. A request that differs from the
 * recording, or has none, throws {@link ModelReplayMissError}, and so does every call after
 * it; `miss` holds the first, for the engine to stop the suite on.
 *
 * @example
 * ```ts
 * const model = new ReplayModel({ dir: 'cassettes', runId, model: 'openai:gpt-4o-mini', provider: 'openai', modelId: 'gpt-4o-mini' });
 * ```
 */
export class ReplayModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls = {};
  /** The first miss, once there is one. */
  miss: ModelReplayMissError | undefined;
  private readonly file: string;
  private readonly expected: ExpectedCall[] | undefined;
  private readonly recordedModel: string | undefined;
  private calls = 0;

  constructor(private readonly options: ReplayModelOptions) {
    this.provider = options.provider;
    this.modelId = options.modelId;
    this.file = modelCassettePath(options.dir, options.runId);
    // Read once, when the run opens its model: a bad file is an input error before any call.
    if (existsSync(this.file)) {
      const cassette = readModelCassette(this.file);
      this.recordedModel = cassette.model;
      this.expected = cassette.runId === options.runId ? expand(cassette) : undefined;
    }
  }

  doGenerate(params: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    params.abortSignal?.throwIfAborted();
    const call = ++this.calls;
    if (this.miss) return Promise.reject(this.miss);
    const found = this.match(call, params);
    if (found instanceof ModelReplayMissError) {
      this.miss = found;
      return Promise.reject(found);
    }
    if (found.error) {
      const error = failureOf(found.error);
      failedCallLatency.set(error, found.latencyMs);
      return Promise.reject(error);
    }
    return Promise.resolve(resultOf(found));
  }

  doStream(): PromiseLike<LanguageModelV3StreamResult> {
    // Streaming is neither metered nor recorded yet; a recorded run never streamed.
    return Promise.reject(
      new Error('a replayed model answers generate calls only (streaming is not recorded)'),
    );
  }

  private match(
    call: number,
    params: LanguageModelV3CallOptions,
  ): RecordedModelCall | ModelReplayMissError {
    const miss = (
      field: ModelReplayMissData['field'],
      expected: string,
      actual: string,
      at?: number,
    ): ModelReplayMissError =>
      new ModelReplayMissError({
        runId: this.options.runId,
        file: this.file,
        call,
        field,
        ...(at === undefined ? {} : { at }),
        ...trimAroundDifference(expected, actual),
      });
    const messages = canonicalMessages(params.prompt);
    const shape = requestShape(params);
    const asked = `${messages.length} message(s), ending ${messages.at(-1) ?? 'nowhere'}`;
    if (this.expected === undefined)
      return miss(
        'recording',
        'nothing (no cassette for this run; record it with --record-model)',
        asked,
      );
    if (this.recordedModel !== this.options.model)
      return miss('model', this.recordedModel ?? '', this.options.model);
    const recorded = this.expected[call - 1];
    if (!recorded)
      return miss(
        'recording',
        `nothing (the recording ends after ${this.expected.length} call(s))`,
        asked,
      );
    const length = Math.max(recorded.messages.length, messages.length);
    for (let i = 0; i < length; i++) {
      if (recorded.messages[i] !== messages[i])
        return miss(
          'messages',
          recorded.messages[i] ??
            `nothing (the request had ${recorded.messages.length} message(s))`,
          messages[i] ?? `nothing (the request has ${messages.length} message(s))`,
          i,
        );
    }
    if (recorded.tools !== shape.tools) return miss('tools', recorded.tools, shape.tools);
    if (recorded.settings !== shape.settings)
      return miss('settings', recorded.settings, shape.settings);
    return recorded.call;
  }
}

function resultOf(call: RecordedModelCall): LanguageModelV3GenerateResult {
  const reply = call.reply;
  if (!reply) throw new Error('a recorded failure has no reply');
  const response = reply.response;
  return {
    content: reply.content as unknown as LanguageModelV3Content[],
    finishReason: reply.finishReason as LanguageModelV3GenerateResult['finishReason'],
    usage: reply.usage as LanguageModelV3Usage,
    providerMetadata: withLatency(reply.providerMetadata, call.latencyMs),
    ...(response
      ? {
          response: {
            ...(response.id === undefined ? {} : { id: response.id }),
            ...(response.modelId === undefined ? {} : { modelId: response.modelId }),
            ...(response.timestamp === undefined
              ? {}
              : { timestamp: new Date(response.timestamp) }),
          },
        }
      : {}),
    warnings: reply.warnings as unknown as LanguageModelV3GenerateResult['warnings'],
  };
}

/** The recorded failure, rebuilt as the SDK's own error so the agent classifies it the same. */
function failureOf(failure: NonNullable<RecordedModelCall['error']>): Error {
  if (failure.name === 'AI_APICallError')
    return new APICallError({
      message: failure.message,
      url: failure.url ?? '',
      requestBodyValues: {},
      ...(failure.statusCode === undefined ? {} : { statusCode: failure.statusCode }),
      ...(failure.responseHeaders === undefined
        ? {}
        : { responseHeaders: failure.responseHeaders }),
      ...(failure.responseBody === undefined ? {} : { responseBody: failure.responseBody }),
      ...(failure.isRetryable === undefined ? {} : { isRetryable: failure.isRetryable }),
    });
  const error = new Error(failure.message);
  error.name = failure.name;
  return error;
}
