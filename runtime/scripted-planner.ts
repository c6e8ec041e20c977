import type { Blueprint, Operation } from './blueprint.js';
import type { Planner, Proposal } from './planner.js';
import { evaluate, pathsOf, refsOf, resolveValue } from './predicate.js';
import { DONE_STATUSES } from './records.js';
import type { OperationView, WorkingContext } from './working-context.js';

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
  /** The operations list the last scan read, and the index where it stopped. */
  private scanned: readonly OperationView[] | undefined;
  private cursor = 0;

  constructor(private readonly blueprint: Blueprint) {
    this.versions = { model: 'scripted', prompt: `${blueprint.id}@${blueprint.version}` };
  }

  propose(context: WorkingContext): Promise<{ proposal: Proposal }> {
    return Promise.resolve({ proposal: this.next(context) });
  }

  /** What {@link propose} resolves to, without the promise: scripted planning is synchronous. */
  next(context: WorkingContext): Proposal {
    const failure = context.lastFailure;
    if (failure?.class === 'precondition_failed') {
      const op = this.blueprint.operations.find((o) => o.id === failure.operationId);
      return {
        kind: 'replan',
        reason: `precondition failed for ${failure.operationId}: ${failure.message}`,
        refresh: op ? dependenciesOf(op) : [],
      };
    }
    const op = this.firstNotDone(context.operations);
    if (op) return this.proposeOperation(op, context);
    return { kind: 'finish', summary: `all ${this.blueprint.operations.length} operations done` };
  }

  /**
   * The first operation, in blueprint order, that is not done. A scan of the same list picks up
   * where the last one stopped, so following a blueprint costs O(1) a step rather than O(n): a
   * producer that undoes an operation (done → not done) hands over a new list, as the runtime
   * does, and a new list is scanned from the start.
   */
  private firstNotDone(views: readonly OperationView[]): Operation | undefined {
    const operations = this.blueprint.operations;
    let index = views === this.scanned ? this.cursor : 0;
    let byId: Map<string, OperationView['status']> | undefined;
    for (; ; index++) {
      const op = operations[index];
      if (!op) break;
      // The runtime lists operations in blueprint order; look up by id only when it does not.
      const aligned = views[index];
      let status: OperationView['status'];
      if (aligned?.id === op.id) status = aligned.status;
      else {
        byId ??= new Map(views.map((v) => [v.id, v.status]));
        status = byId.get(op.id) ?? 'pending';
      }
      if (!DONE_STATUSES.has(status)) break;
    }
    this.scanned = views;
    this.cursor = index;
    return operations[index];
  }

  private proposeOperation(op: Operation, context: WorkingContext): Proposal {
    if (op.when && !evaluate(op.when, context.scope)) {
      return { kind: 'skip', operationId: op.id, reason: `condition does not hold for ${op.id}` };
    }
    const args: Record<string, unknown> = {};
    for (const key in op.args) args[key] = resolveValue(op.args[key], context.scope);
    return { kind: 'act', operationId: op.id, tool: op.tool, args, origin: { kind: 'blueprint' } };
  }
}
