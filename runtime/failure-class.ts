import { z } from 'zod';

/**
 * Every way a step can fail, as the runtime classifies it. The supervisor picks its response
 * by class alone, so classification is the one place where a tool's error becomes a decision.
 *
 * The first group is what worlds put in an error result's `_meta` (see `protocol.ts`); the
 * second is what the runtime itself detects.
 */
export const TOOL_ERROR_CLASSES = [
  'transient',
  'timeout',
  'rate_limited',
  'unavailable',
  'unauthenticated',
  'forbidden',
  'invalid_argument',
  'precondition_failed',
  'not_found',
  'conflict',
] as const;

export const RUNTIME_FAILURE_CLASSES = [
  /** No reply (lost, timed out) after the request left: the effect may or may not exist. */
  'ambiguous',
  /** The reply broke the tool's output schema or the protocol. */
  'malformed_reply',
  /** The planner's proposal did not parse. */
  'invalid_output',
  'policy_denied',
  'approval_denied',
  'budget_exhausted',
  'cancelled',
] as const;

export const toolErrorClassSchema = z.enum(TOOL_ERROR_CLASSES);
export type ToolErrorClass = z.infer<typeof toolErrorClassSchema>;
export type FailureClass = ToolErrorClass | (typeof RUNTIME_FAILURE_CLASSES)[number];
export const failureClassSchema = z.enum([...TOOL_ERROR_CLASSES, ...RUNTIME_FAILURE_CLASSES]);

/** Result classes recorded on events: success, or the failure class. */
export type ResultClass = 'ok' | FailureClass;
