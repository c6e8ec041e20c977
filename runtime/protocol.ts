import { z } from 'zod';
import { toolErrorClassSchema } from './failure-class.js';

/**
 * Conventions the runtime and any world agree on, carried in MCP `_meta` fields so that tool
 * argument schemas stay the world's own. A world that follows them can be driven and graded by
 * faultline; the SDK validates `structuredContent` against output schemas even on errors, so
 * error details travel in `_meta`, never in `structuredContent`.
 */
export const META = {
  /** Request `_meta`: the run's scoped credential token. Never logged or stored by the runtime. */
  credential: 'faultline/credential',
  /** Request `_meta`: the write's idempotency key, sent on every write whether or not the tool honours keys. */
  idempotencyKey: 'faultline/idempotency-key',
  /** Request `_meta`: the run id, so the world can attribute effects. */
  runId: 'faultline/run-id',
  /** Request `_meta`: the blueprint operation id the call serves. */
  operationId: 'faultline/operation-id',
  /** Result `_meta`: a typed error, present whenever `isError` is true. */
  error: 'faultline/error',
  /** Result `_meta`: provenance of returned content (`trusted` or `untrusted`). */
  trust: 'faultline/trust',
} as const;

export const toolErrorSchema = z.object({
  class: toolErrorClassSchema,
  message: z.string(),
  /** For `rate_limited`: how long to wait before the next call, in milliseconds. */
  retryAfterMs: z.number().int().nonnegative().optional(),
});
export type ToolError = z.infer<typeof toolErrorSchema>;

export const trustSchema = z.enum(['trusted', 'untrusted']);
export type Trust = z.infer<typeof trustSchema>;

/** Request `_meta` key for a granted approval token; the world consumes it once. */
export const APPROVAL_TOKEN_META = 'faultline/approval-token';

/**
 * Tool arguments with one meaning in every world, for agents that cannot send `_meta` (a stock
 * MCP client): a write's idempotency key, as a payment API takes an `Idempotency-Key` header,
 * and the approval token a write presents. A world takes them out of the arguments before its
 * handler and its idempotency fingerprint see them, so each means exactly what its `_meta`
 * field means; both may be sent, but not with different values.
 */
export const CONTRACT_ARGUMENT = {
  idempotencyKey: 'idempotency_key',
  approvalToken: 'approval_token',
} as const;

/**
 * Tools served beside a world's own and backed by the run's operator: approvals for an agent
 * that has no operator channel. They are not world calls, so no wire fault fires on them and
 * the wire log does not record them.
 */
export const APPROVAL_TOOLS = ['request_approval', 'get_approval', 'wait_for_approval'] as const;
