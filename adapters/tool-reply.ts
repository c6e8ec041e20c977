import type {
  CallToolResult,
  CompatibilityCallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolErrorClass } from '../runtime/failure-class.js';
import { META, toolErrorSchema } from '../runtime/protocol.js';

/**
 * How a world refused a call: one of the world's failure classes, or `untyped` when the reply
 * carried no `_meta['faultline/error']` (the SDK's own "Input validation error", say).
 */
export type ToolCallErrorCode = ToolErrorClass | 'untyped';

const RETRYABLE: ReadonlySet<ToolCallErrorCode> = new Set([
  'transient',
  'timeout',
  'rate_limited',
  'unavailable',
]);

/**
 * A tool call the world refused, with the failure class kept: an agent framework turns a thrown
 * error into text for its model, and an agent's own code needs the class (and a rate limit's
 * retry-after) to pick its recovery without parsing that text.
 *
 * @example
 * ```ts
 * if (error instanceof ToolCallError && error.code === 'rate_limited')
 *   await sleep(error.data.retryAfterMs ?? 1_000);
 * ```
 */
export class ToolCallError extends Error {
  override readonly name = 'ToolCallError';
  constructor(
    readonly code: ToolCallErrorCode,
    message: string,
    readonly data: { readonly tool: string; readonly retryAfterMs?: number },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Whether the same call could succeed later without anything else changing. */
  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }

  /** The plain form a model reads (and a checkpoint stores): class, message, retry-after. */
  toJSON(): ToolCallErrorData {
    return {
      tool: this.data.tool,
      class: this.code,
      message: this.message,
      ...(this.data.retryAfterMs === undefined ? {} : { retryAfterMs: this.data.retryAfterMs }),
    };
  }
}

/** A {@link ToolCallError} as plain data. */
export interface ToolCallErrorData {
  tool: string;
  class: ToolCallErrorCode;
  message: string;
  retryAfterMs?: number;
}

/** A world tool's reply, settled: its data, or the typed refusal. */
export type ToolReply = { ok: true; value: unknown } | { ok: false; error: ToolCallError };

/**
 * Reads a world's MCP reply: the structured result on success (the text content when a tool
 * has none), the typed error from `_meta['faultline/error']` on `isError`.
 *
 * @example
 * ```ts
 * const reply = toolReply('issue_refund', await client.callTool({ name: 'issue_refund', arguments }));
 * if (!reply.ok) console.log(reply.error.code, reply.error.data.retryAfterMs);
 * ```
 */
export function toolReply(
  tool: string,
  result: CallToolResult | CompatibilityCallToolResult,
): ToolReply {
  const content = Array.isArray(result.content)
    ? (result.content as CallToolResult['content'])
    : [];
  const text = content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  if (result.isError !== true) {
    const value = result.structuredContent ?? (content.length > 0 ? text : null);
    return { ok: true, value };
  }
  const typed = toolErrorSchema.safeParse(result._meta?.[META.error]);
  if (!typed.success)
    return {
      ok: false,
      error: new ToolCallError('untyped', text || `${tool} failed`, { tool }),
    };
  const { retryAfterMs } = typed.data;
  return {
    ok: false,
    error: new ToolCallError(typed.data.class, describe(typed.data, retryAfterMs), {
      tool,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    }),
  };
}

/**
 * The message a model reads (frameworks hand it `error.message`): the class, the world's words,
 * and how long to wait when the world said.
 */
function describe(error: { class: string; message: string }, retryAfterMs?: number): string {
  const wait = retryAfterMs === undefined ? '' : ` (retry after ${retryAfterMs} ms)`;
  return `${error.class}: ${error.message}${wait}`;
}
