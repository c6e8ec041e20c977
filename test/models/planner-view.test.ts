import { describe, expect, it } from 'vitest';
import {
  NEXT_SHOWN,
  parseViewMessage,
  plannerView,
  viewMessage,
} from '../../models/planner-view.js';
import { parseBlueprint, type Blueprint } from '../../runtime/blueprint.js';
import type { WorkingContext } from '../../runtime/working-context.js';

/** n reads in a chain: step-k reads step-(k-1)'s result; step-2 runs only when step-1 says so. */
function chain(n: number): Blueprint {
  return parseBlueprint({
    id: 'chain',
    version: '1',
    operations: Array.from({ length: n }, (_, i) => ({
      id: `step-${String(i)}`,
      tool: 'get_item',
      kind: 'read',
      args:
        i === 0 ? { id: { $ref: 'input.start' } } : { id: { $ref: `step-${String(i - 1)}.next` } },
      ...(i === 2 ? { when: { path: 'step-1.go', op: 'eq', value: true } } : {}),
    })),
  });
}

function context(
  blueprint: Blueprint,
  done: number,
  by: 'blueprint' | 'objective',
): WorkingContext {
  const scope: Record<string, unknown> = { input: { start: 'a' } };
  for (let i = 0; i < done; i++)
    scope[`step-${String(i)}`] = { next: `n${String(i)}`, go: false, blob: 'x'.repeat(10_000) };
  return {
    runId: 'r1',
    objective: 'walk the chain',
    decisionBoundary: 'execute',
    mode: 'bounded',
    input: { start: 'a' },
    planVersion: 2,
    operations: blueprint.operations.map((o, i) => ({
      id: o.id,
      tool: o.tool,
      kind: o.kind,
      status: i < done ? 'confirmed' : 'pending',
    })),
    evidence: [],
    scope,
    plan: { by, operations: blueprint.operations, completion: blueprint.completion },
    tools: [{ name: 'get_item', description: 'Read an item', inputSchema: { type: 'object' } }],
    evidenceRequired: [{ id: 'start', description: 'where the walk began', operation: 'step-0' }],
  };
}

describe('plannerView: a bounded working context', () => {
  it('shows the next operations in full, resolved, and only the results they read', () => {
    const view = plannerView(context(chain(30), 2, 'blueprint'));
    expect(view.next.map((n) => n.id)).toEqual(['step-2', 'step-3', 'step-4']);
    expect(view.next).toHaveLength(NEXT_SHOWN);
    expect(view.next[0]).toMatchObject({
      args: { id: { $ref: 'step-1.next' } },
      resolvedArgs: { id: 'n1' },
      whenHolds: false,
    });
    expect(Object.keys(view.results)).toEqual(['step-1']);
    expect(view.operations).toHaveLength(30);
    expect(view.plan).toBeUndefined();
    expect(view.tools).toBeUndefined();
  });

  it('does not grow with the results of the run so far', () => {
    const blueprint = chain(30);
    const early = JSON.stringify(plannerView(context(blueprint, 3, 'blueprint'))).length;
    const late = JSON.stringify(plannerView(context(blueprint, 25, 'blueprint'))).length;
    // 22 more results of 10 kB each are in scope; the view carries one of them either way.
    expect(Math.abs(late - early)).toBeLessThan(1_000);
  });

  it('in an objective-only run, carries the plan and the tools when the model may rewrite it', () => {
    const blueprint = chain(3);
    const failed = {
      ...context(blueprint, 1, 'objective'),
      lastFailure: { operationId: 'step-1', class: 'precondition_failed', message: 'stale' },
    };
    const view = plannerView(failed);
    expect(view.planning).toBe('objective');
    expect(view.plan?.operations.map((o) => o.id)).toEqual(['step-0', 'step-1', 'step-2']);
    expect(view.tools?.map((t) => t.name)).toEqual(['get_item']);
    expect(view.evidenceRequired).toEqual([
      { id: 'start', description: 'where the walk began', operation: 'step-0' },
    ]);
    const empty = {
      ...context(blueprint, 0, 'objective'),
      plan: { by: 'objective' as const, operations: [], completion: [] },
    };
    expect(plannerView(empty).tools?.map((t) => t.name)).toEqual(['get_item']);
    // A calm step: the next operations are enough.
    const calm = plannerView(context(blueprint, 1, 'objective'));
    expect(calm.plan).toBeUndefined();
    expect(calm.tools).toBeUndefined();
  });

  it('reads back from the message it is sent in', () => {
    const view = plannerView(context(chain(3), 1, 'blueprint'));
    expect(parseViewMessage(`${viewMessage(view)}\n`)).toEqual(JSON.parse(JSON.stringify(view)));
    expect(parseViewMessage('hello')).toBeUndefined();
  });
});
