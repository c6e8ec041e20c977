import type { Blueprint, Operation } from './blueprint.js';
import type { Planner, Proposal } from './planner.js';
import { evaluate, pathsOf, refsOf, resolveValue } from './predicate.js';
import type { WorkingContext } from './working-context.js';

const DONE = new Set(['confirmed', 'reconciled', 'skipped', 'proposed', 'compensated']);

/** Operation ids whose results `op` reads (through `$ref`s in its arguments and `when`). */
export function dependenciesOf(op: Operation): string[] {
  const refs = [...refsOf(op.args), ...pathsOf(op.when)];
  return [...new Set(refs.map((r) => r.split('.')[0] ?? r).filter((id) => id !== 'input'))];
}

/**
 * Follows a blueprint: proposes the first operation not yet done, with its arguments resolved
 * from earlier results; skips one whose `when` does not hold; after a failed precondition,
 * replans by refreshing the reads the operation depends on. Deterministic.
 *
 * @example
 * ```ts
 * const planner = new ScriptedPlanner(parseBlueprint(json));
 * ```
 */
export class ScriptedPlanner implements Planner {
  readonly versions;

  constructor(private readonly blueprint: Blueprint) {
    this.versions = { model: 'scripted', prompt: `${blueprint.id}@${blueprint.version}` };
  }

  propose(context: WorkingContext): Promise<{ proposal: Proposal }> {
    return Promise.resolve({ proposal: this.next(context) });
  }

  private next(context: WorkingContext): Proposal {
    const failure = context.lastFailure;
    if (failure?.class === 'precondition_failed') {
      const op = this.blueprint.operations.find((o) => o.id === failure.operationId);
      return {
        kind: 'replan',
        reason: `precondition failed for ${failure.operationId}: ${failure.message}`,
        refresh: op ? dependenciesOf(op) : [],
      };
    }
    const status = new Map(context.operations.map((o) => [o.id, o.status]));
    for (const op of this.blueprint.operations) {
      if (DONE.has(status.get(op.id) ?? 'pending')) continue;
      if (op.when && !evaluate(op.when, context.scope)) {
        return { kind: 'skip', operationId: op.id, reason: `condition does not hold for ${op.id}` };
      }
      const args = Object.fromEntries(Object.entries(op.args).map(([k, v]) => [k, resolveValue(v, context.scope)]));
      return { kind: 'act', operationId: op.id, tool: op.tool, args, origin: { kind: 'blueprint' } };
    }
    return { kind: 'finish', summary: `all ${this.blueprint.operations.length} operations done` };
  }
}
