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
    const views = context.operations;
    let byId: Map<string, string> | undefined;
    const statusOf = (op: Operation, index: number): string => {
      // The runtime lists operations in blueprint order; look up by id only when it does not.
      const aligned = views[index];
      if (aligned?.id === op.id) return aligned.status;
      byId ??= new Map(views.map((v) => [v.id, v.status]));
      return byId.get(op.id) ?? 'pending';
    };
    for (const [index, op] of this.blueprint.operations.entries()) {
      if (!DONE.has(statusOf(op, index))) return this.proposeOperation(op, context);
    }
    return { kind: 'finish', summary: `all ${this.blueprint.operations.length} operations done` };
  }

  private proposeOperation(op: Operation, context: WorkingContext): Proposal {
    if (op.when && !evaluate(op.when, context.scope)) {
      return { kind: 'skip', operationId: op.id, reason: `condition does not hold for ${op.id}` };
    }
    const args = Object.fromEntries(
      Object.entries(op.args).map(([k, v]) => [k, resolveValue(v, context.scope)]),
    );
    return { kind: 'act', operationId: op.id, tool: op.tool, args, origin: { kind: 'blueprint' } };
  }
}
