import type { z } from 'zod';
import type { Trust } from '../../runtime/protocol.js';
import type { LedgerEntry } from './effect-ledger.js';

/**
 * `read` fetches a record, `query` searches or reconciles (e.g. "was this message sent?"),
 * `write` changes world state and must record each change in the ledger.
 */
export type ToolKind = 'read' | 'write' | 'query';

/** What a handler knows about the call it serves, and how it records effects. */
export interface CallContext {
  /** Virtual time of the call. */
  readonly now: number;
  /** The run the presented credential belongs to. */
  readonly runId: string;
  /** The JSON-RPC id of the request, as a string. */
  readonly requestId: string;
  /** The idempotency key the request carried, honoured or not. */
  readonly idempotencyKey: string | null;
  /** The approval token the request carried, if any. */
  readonly approvalToken: string | null;
  /**
   * Records an effect the handler has just applied. Call it exactly once per state change,
   * after the change, so the `after-apply` probe sees the world as it now is.
   */
  apply(
    identity: string,
    effect: Record<string, unknown>,
    options?: { compensates?: number },
  ): LedgerEntry;
  /**
   * Redeems the request's approval token for this tool and `identity`, or throws a `forbidden`
   * WorldError saying why not. Effects applied afterwards record the token.
   */
  requireApproval(identity: string): void;
}

/**
 * One tool a world serves. Schemas are zod objects: the MCP server advertises and enforces
 * them, and the world checks them again for calls that do not come over MCP.
 *
 * `handle` is a method (not a function property) on purpose: method parameters are bivariant,
 * so a world can list its differently typed tools as one `ToolDefinition[]`.
 */
export interface ToolDefinition<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  readonly name: string;
  readonly description: string;
  readonly kind: ToolKind;
  readonly input: I;
  readonly output: O;
  /** Writes only: a repeated key replays the first result instead of applying again. */
  readonly honoursIdempotencyKey?: boolean;
  /** `untrusted` marks content from outside the world's authority (documents, emails). */
  readonly trust?: Trust;
  handle(args: z.output<I>, ctx: CallContext): z.input<O>;
}

/**
 * Identity function that infers a tool's argument and result types from its schemas.
 *
 * @example
 * ```ts
 * const ping = defineTool({
 *   name: 'ping', description: 'Answers pong.', kind: 'read',
 *   input: z.object({}), output: z.object({ reply: z.string() }),
 *   handle: () => ({ reply: 'pong' }),
 * });
 * ```
 */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  tool: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return tool;
}
