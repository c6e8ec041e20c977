/**
 * The runtime's typed errors: one base, a code from a closed union, typed data, and whether a
 * retry could help. Never throw strings; keep the original as `cause`.
 */
export type FaultlineErrorCode =
  | 'invalid-input'
  | 'illegal-transition'
  | 'store-schema'
  | 'not-found'
  | 'policy-denied'
  | 'closed'
  | 'planner-call'
  /** A replayed model was asked what its cassette does not hold (recordings/replay-model.ts). */
  | 'model-replay-miss'
  /** A live MCP server could not be reached or listed (scenarios/world/live-world.ts). */
  | 'live-unreachable';

export class FaultlineError<Data = Record<string, unknown>> extends Error {
  override readonly name: string = 'FaultlineError';
  constructor(
    readonly code: FaultlineErrorCode,
    message: string,
    readonly data: Data = {} as Data,
    readonly retryable = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Thrown when input fails validation; the message names where and what was expected. */
export class InvalidInputError extends FaultlineError<{ source: string; issues: string[] }> {
  override readonly name = 'InvalidInputError';
  constructor(source: string, issues: string[], options?: { cause?: unknown }) {
    super(
      'invalid-input',
      `Invalid ${source}: ${issues.join('; ')}`,
      { source, issues },
      false,
      options,
    );
  }
}
