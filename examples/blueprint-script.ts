import type { Blueprint } from '../runtime/blueprint.js';
import { evaluate, resolveValue } from '../runtime/predicate.js';

/** One tool call's outcome as a model reads it back from its conversation. */
export type SeenOutcome = { ok: true; value: unknown } | { ok: false; error: string };

/** What the scripted model says next. */
export type NextMove =
  | { kind: 'call'; operation: string; tool: string; args: Record<string, unknown> }
  | { kind: 'finish'; text: string }
  | { kind: 'give-up'; text: string };

/**
 * The "model" of the examples: it reads the tool outcomes in its conversation and proposes the
 * scenario's next blueprint operation with its arguments resolved (`$ref`s into the input and
 * earlier results), skips an operation whose `when` does not hold, and gives up at the first
 * refusal. Deterministic, so the examples' grades are stable; everything it knows comes from the
 * conversation, as a real model's would — an agent that restarts with an empty conversation
 * starts the plan again from the top.
 *
 * @example
 * ```ts
 * nextMove(run.blueprint, run.input, []); // { kind: 'call', tool: 'get_order', … }
 * ```
 */
export function nextMove(
  blueprint: Blueprint,
  input: Record<string, unknown>,
  seen: readonly SeenOutcome[],
): NextMove {
  const scope: Record<string, unknown> = { input };
  let next = 0;
  for (const op of blueprint.operations) {
    if (op.when && !evaluate(op.when, scope)) continue;
    const outcome = seen[next];
    if (!outcome) {
      const args = Object.fromEntries(
        Object.entries(op.args).map(([k, v]) => [k, resolveValue(v, scope)]),
      );
      return { kind: 'call', operation: op.id, tool: op.tool, args };
    }
    if (!outcome.ok)
      return { kind: 'give-up', text: `I stopped: ${op.tool} failed (${outcome.error})` };
    scope[op.id] = outcome.value;
    next++;
  }
  return { kind: 'finish', text: 'Done.' };
}

/** How many model steps the plan takes at most: one per operation, and the final answer. */
export function stepsFor(blueprint: Blueprint): number {
  return blueprint.operations.length + 1;
}
