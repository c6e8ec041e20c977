import { APICallError, InvalidResponseDataError } from '@ai-sdk/provider';
import type { FailureClass } from '../runtime/failure-class.js';
import { PlannerCallError } from '../runtime/planner-call-error.js';

/** A model call's failure, classified the way the supervisor decides on it. */
export interface ModelFailure {
  class: FailureClass;
  message: string;
  /** From a 429's `retry-after-ms` or `retry-after` (seconds or an HTTP date), when sent. */
  retryAfterMs?: number;
}

/**
 * What a provider's error means for the agent, checked against the errors the AI SDK's OpenAI
 * and Anthropic providers throw for real HTTP replies (test/models/model-error.test.ts):
 * - 429 is `rate_limited`, with `retry-after-ms` (OpenAI) or `retry-after` (seconds, or an
 *   HTTP date measured from `now`) as `retryAfterMs`;
 * - 5xx (529, Anthropic's "overloaded", included) and a connection that fails are `transient`;
 *   408 and a call aborted by its timeout are `timeout`;
 * - 401 is `unauthenticated`, 403 `forbidden`, any other 4xx `invalid_argument`;
 * - a 2xx whose body is not JSON, or not the JSON the API promises, is `malformed_reply`: the
 *   provider's reply broke its protocol (retried with backoff, like a tool's);
 * - a well-formed reply whose content is not what was asked for (no object, text that does
 *   not parse, a tool call that does not fit) is `invalid_output`: the model's, regenerated.
 * The SDK's own retries (`RetryError`) are seen through to the last error.
 *
 * @example
 * ```ts
 * const failure = classifyModelError(error);
 * if (failure.class === 'rate_limited') await clock.sleep(failure.retryAfterMs ?? 1_000);
 * ```
 */
export function classifyModelError(error: unknown, now: number = Date.now()): ModelFailure {
  if (isRetryError(error) && error.lastError !== undefined)
    return classifyModelError(error.lastError, now);
  const message = error instanceof Error ? error.message : String(error);
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === 429) {
      const retryAfterMs = retryAfter(error.responseHeaders, now);
      return {
        class: 'rate_limited',
        message,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      };
    }
    if (status === 401) return { class: 'unauthenticated', message };
    if (status === 403) return { class: 'forbidden', message };
    if (status === 408) return { class: 'timeout', message };
    if (status !== undefined && status >= 500) return { class: 'transient', message };
    if (status !== undefined && status >= 400) return { class: 'invalid_argument', message };
    // A reply that came (2xx) and could not be read as the API's: its body broke the protocol.
    if (status !== undefined) return { class: 'malformed_reply', message };
    // No status: the request never got an answer (connection refused, reset).
    return { class: 'transient', message };
  }
  if (InvalidResponseDataError.isInstance(error)) return { class: 'malformed_reply', message };
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return { class: 'timeout', message };
  return { class: 'invalid_output', message };
}

const RETRY_ERROR_MARKER = Symbol.for('vercel.ai.error.AI_RetryError');

/**
 * The AI SDK's `RetryError`, told the way its own `RetryError.isInstance` tells it: by the
 * marker symbol the SDK's errors carry (`Symbol.for('vercel.ai.error.AI_RetryError')`). Not
 * through `ai` itself, which a run without a model never loads (about half a megabyte of
 * JavaScript per start); test/models/model-error.test.ts holds the two to the same answer.
 */
export function isRetryError(error: unknown): error is Error & { lastError: unknown } {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[RETRY_ERROR_MARKER] === true
  );
}

/**
 * A provider's error as the runtime takes it from a planner: a {@link PlannerCallError} with
 * its failure class and retry-after, the original error as its cause.
 */
export function toPlannerCallError(error: unknown, now: number = Date.now()): PlannerCallError {
  const failure = classifyModelError(error, now);
  return new PlannerCallError(
    `model call failed (${failure.class}): ${failure.message}`,
    {
      failureClass: failure.class,
      ...(failure.retryAfterMs === undefined ? {} : { retryAfterMs: failure.retryAfterMs }),
    },
    { cause: error },
  );
}

function retryAfter(headers: Record<string, string> | undefined, now: number): number | undefined {
  const ms = Number(headers?.['retry-after-ms'] ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return undefined;
}
