import { FaultlineError } from './errors.js';
import type { FailureClass } from './failure-class.js';

/** What a failed planner call tells the supervisor: its class, and how long to wait when told. */
export interface PlannerCallFailure {
  failureClass: FailureClass;
  /** A rate limit's retry-after, in milliseconds of the run's clock. */
  retryAfterMs?: number;
}

/**
 * A planner's call failed for a reason the supervisor can act on: its model provider limited
 * the rate, failed for a moment, timed out, refused the key. The runtime does not know models:
 * a model-backed planner classifies its provider's error and throws this, and the runtime
 * waits out a rate limit, backs off and retries a transient failure or a timeout within the
 * retry budget, stops on `unauthenticated`/`forbidden`, and regenerates `invalid_output` —
 * chosen by class alone, as for a tool. Any other error a planner throws is `invalid_output`.
 *
 * @example
 * ```ts
 * throw new PlannerCallError('model provider: 429 Too Many Requests', {
 *   failureClass: 'rate_limited',
 *   retryAfterMs: 30_000,
 * });
 * ```
 */
export class PlannerCallError extends FaultlineError<PlannerCallFailure> {
  override readonly name = 'PlannerCallError';
  readonly failureClass: FailureClass;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, failure: PlannerCallFailure, options?: { cause?: unknown }) {
    super('planner-call', message, failure, RETRYABLE.has(failure.failureClass), options);
    this.failureClass = failure.failureClass;
    this.retryAfterMs = failure.retryAfterMs;
  }

  /** True for a `PlannerCallError`, also one from another copy of the module. */
  static isInstance(error: unknown): error is PlannerCallError {
    return (
      error instanceof PlannerCallError ||
      (error instanceof Error &&
        error.name === 'PlannerCallError' &&
        typeof (error as Partial<PlannerCallError>).failureClass === 'string')
    );
  }
}

const RETRYABLE: ReadonlySet<FailureClass> = new Set([
  'transient',
  'timeout',
  'rate_limited',
  'unavailable',
  'malformed_reply',
  'invalid_output',
]);
