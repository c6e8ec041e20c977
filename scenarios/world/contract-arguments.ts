import { z } from 'zod';
import { CONTRACT_ARGUMENT } from '../../runtime/protocol.js';
import type { ToolDefinition } from './tool-definition.js';

// Made once: every world server of every run asks for them, and a zod schema costs more to
// make than to share (schemas are immutable).
const IDEMPOTENCY_KEY_ARGUMENT = z
  .string()
  .optional()
  .describe('Idempotency key: a resend with the same key and arguments applies once.');
const APPROVAL_TOKEN_ARGUMENT = z
  .string()
  .optional()
  .describe('Approval token granted for exactly this change (see request_approval).');

/** Extended schemas by the world's own schema and what was added, so a world's schemas convert once per process. */
const extended = new WeakMap<z.ZodObject, Map<string, z.ZodObject>>();

/**
 * The input schema a tool is served with: the world's own, plus the contract's ordinary
 * arguments the tool takes — `idempotency_key` on a write that honours keys, `approval_token`
 * on every write (a supervised contract can put any write behind an approval). Both optional.
 *
 * @example
 * ```ts
 * const schema = contractInput(world.tool('issue_refund')!);
 * schema.parse({ order_id: 'ord_1', amount_cents: 500, idempotency_key: 'k1' });
 * ```
 */
export function contractInput(tool: ToolDefinition): z.ZodObject {
  const shape: Record<string, z.ZodOptional<z.ZodString>> = {};
  if (tool.kind === 'write' && tool.honoursIdempotencyKey === true)
    shape[CONTRACT_ARGUMENT.idempotencyKey] = IDEMPOTENCY_KEY_ARGUMENT;
  if (tool.kind === 'write') shape[CONTRACT_ARGUMENT.approvalToken] = APPROVAL_TOKEN_ARGUMENT;
  const names = Object.keys(shape).join(',');
  if (names === '') return tool.input;
  let byNames = extended.get(tool.input);
  if (!byNames) {
    byNames = new Map();
    extended.set(tool.input, byNames);
  }
  let schema = byNames.get(names);
  if (!schema) {
    // safeExtend: a world's schema may carry refinements, which plain `extend` refuses.
    schema = tool.input.safeExtend(shape);
    byNames.set(names, schema);
  }
  return schema;
}

/** A call's arguments split into the world's own and the contract's ordinary arguments. */
export interface TakenArguments {
  readonly args: Readonly<Record<string, unknown>>;
  /** As sent (`undefined` when absent); the caller checks the type. */
  readonly idempotencyKey: unknown;
  readonly approvalToken: unknown;
}

/**
 * Takes the contract's ordinary arguments out of a call's arguments. The names are reserved in
 * every world, so they are taken from any tool's arguments: what the agent sent is recorded
 * the same way whether or not the tool honours it, as a key sent in `_meta` is.
 */
export function takeContractArguments(args: Readonly<Record<string, unknown>>): TakenArguments {
  const { idempotencyKey: keyName, approvalToken: tokenName } = CONTRACT_ARGUMENT;
  if (!(keyName in args) && !(tokenName in args))
    return { args, idempotencyKey: undefined, approvalToken: undefined };
  const { [keyName]: idempotencyKey, [tokenName]: approvalToken, ...rest } = args;
  return { args: rest, idempotencyKey, approvalToken };
}
