import { APICallError } from '@ai-sdk/provider';
import type { FailureClass } from '../runtime/failure-class.js';

/** A model call's failure, classified the way the supervisor decides on it. */
export interface ModelFailure {
  class: FailureClass;
  message: string;
  /** From a 429's `retry-after` (seconds or an HTTP date), when the provider sent one. */
  retryAfterMs?: number;
}

/**
 * What a provider's error means for the agent: 429 is `rate_limited` (with its retry-after),
 * 5xx and dropped connections `transient`, a timeout `timeout`, 401 `unauthenticated`, 403
 * `forbidden`, other 4xx `invalid_argument`, and a body that does not parse `invalid_output`.
 */
export function classifyModelError(error: unknown): ModelFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === 429) {
      const retryAfterMs = retryAfter(error.responseHeaders?.['retry-after']);
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
    return { class: 'transient', message };
  }
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return { class: 'timeout', message };
  return { class: 'invalid_output', message };
}

function retryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  return undefined;
}
