import type { ToolErrorClass } from '../../runtime/failure-class.js';
import type { ToolError } from '../../runtime/protocol.js';

const RETRYABLE: ReadonlySet<ToolErrorClass> = new Set([
  'transient',
  'timeout',
  'rate_limited',
  'unavailable',
]);

/**
 * A typed refusal from a world. Handlers and hooks throw (or return) it; the MCP layer turns it
 * into an `isError` result with the class in `_meta`, which is what lets an agent pick its
 * recovery by class instead of by parsing prose.
 *
 * @example
 * ```ts
 * throw new WorldError('rate_limited', 'slow down', 2_000);
 * ```
 */
export class WorldError extends Error {
  override readonly name = 'WorldError';
  readonly class: ToolErrorClass;
  /** For `rate_limited`: how long the caller should wait, in ms. */
  readonly retryAfterMs: number | undefined;

  constructor(
    cls: ToolErrorClass,
    message: string,
    retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.class = cls;
    this.retryAfterMs = retryAfterMs;
  }

  /** Whether the same call could succeed later without anything else changing. */
  get retryable(): boolean {
    return RETRYABLE.has(this.class);
  }

  /** The wire form carried in a result's `_meta[META.error]`. */
  toToolError(): ToolError {
    return this.retryAfterMs === undefined
      ? { class: this.class, message: this.message }
      : { class: this.class, message: this.message, retryAfterMs: this.retryAfterMs };
  }
}
