import { describe, expect, it } from 'vitest';
import { parseBlueprint, type Blueprint, type BlueprintInput } from '../../runtime/blueprint.js';
import { proposalSchema, type Proposal } from '../../runtime/planner.js';
import { ScriptedPlanner, dependenciesOf } from '../../runtime/scripted-planner.js';
import type { OperationView, WorkingContext } from '../../runtime/working-context.js';

const blueprintInput = (): BlueprintInput => ({
  id: 'refunds',
  version: '3',
  operations: [
    {
      id: 'lookup',
      tool: 'get_order',
      kind: 'read',
      args: { order_id: { $ref: 'input.order_id' } },
    },
    {
      id: 'customer',
      tool: 'get_customer',
      kind: 'read',
      args: { customer_id: { $ref: 'lookup.customer_id' } },
    },
    {
      id: 'refund',
      tool: 'issue_refund',
      kind: 'write',
      args: {
        order_id: { $ref: 'input.order_id' },
        amount_cents: { $ref: 'lookup.total_cents' },
        email: { $ref: 'customer.email' },
        lines: [{ $ref: 'lookup.lines.0' }, 'fixed'],
        note: 'refund',
      },
      when: { path: 'lookup.status', op: 'eq', value: 'paid' },
      preconditions: [
        {
          description: 'still paid',
          read: { tool: 'get_order', args: { order_id: { $ref: 'input.order_id' } } },
          expect: { path: 'fresh.status', op: 'eq', value: 'paid' },
        },
      ],
    },
  ],
});

const blueprint: Blueprint = parseBlueprint(blueprintInput());

const view = (id: string, status: OperationView['status']): OperationView => {
  const op = blueprint.operations.find((o) => o.id === id)!;
  return { id, tool: op.tool, kind: op.kind, status };
};

const context = (
  statuses: Record<string, OperationView['status']>,
  scope: Record<string, unknown>,
  extra: Partial<WorkingContext> = {},
): WorkingContext => ({
  runId: 'run-1',
  objective: 'refund order ord_1',
  decisionBoundary: 'execute',
  mode: 'bounded',
  input: { order_id: 'ord_1' },
  planVersion: 1,
  operations: blueprint.operations.map((o) => view(o.id, statuses[o.id] ?? 'pending')),
  evidence: [],
  scope: { input: { order_id: 'ord_1' }, ...scope },
  ...extra,
});

const lookup = { customer_id: 'cus_1', total_cents: 500, status: 'paid', lines: [{ sku: 'a' }] };
const customer = { email: 'a@example.com' };

const propose = async (planner: ScriptedPlanner, ctx: WorkingContext): Promise<Proposal> => {
  const { proposal } = await planner.propose(ctx);
  return proposalSchema.parse(proposal);
};

describe('ScriptedPlanner', () => {
  it('reports scripted versions naming the blueprint', () => {
    expect(new ScriptedPlanner(blueprint).versions).toEqual({
      model: 'scripted',
      prompt: 'refunds@3',
    });
  });

  it('proposes the first operation with its $ref args resolved from the input', async () => {
    const proposal = await propose(new ScriptedPlanner(blueprint), context({}, {}));

    expect(proposal).toEqual({
      kind: 'act',
      operationId: 'lookup',
      tool: 'get_order',
      args: { order_id: 'ord_1' },
      origin: { kind: 'blueprint' },
    });
  });

  it('proposes operations in blueprint order as earlier ones finish', async () => {
    const planner = new ScriptedPlanner(blueprint);

    const second = await propose(planner, context({ lookup: 'confirmed' }, { lookup }));
    const third = await propose(
      planner,
      context({ lookup: 'confirmed', customer: 'reconciled' }, { lookup, customer }),
    );

    expect(second).toMatchObject({
      kind: 'act',
      operationId: 'customer',
      args: { customer_id: 'cus_1' },
    });
    expect(third).toEqual({
      kind: 'act',
      operationId: 'refund',
      tool: 'issue_refund',
      args: {
        order_id: 'ord_1',
        amount_cents: 500,
        email: 'a@example.com',
        lines: [{ sku: 'a' }, 'fixed'],
        note: 'refund',
      },
      origin: { kind: 'blueprint' },
    });
  });

  it.each(['intended', 'sent', 'ambiguous', 'failed', 'pending'] as const)(
    'proposes an operation again while it is %s',
    async (status) => {
      const proposal = await propose(
        new ScriptedPlanner(blueprint),
        context({ lookup: status }, {}),
      );

      expect(proposal).toMatchObject({ kind: 'act', operationId: 'lookup' });
    },
  );

  it.each(['confirmed', 'reconciled', 'skipped', 'proposed', 'compensated'] as const)(
    'treats %s as done',
    async (status) => {
      const proposal = await propose(
        new ScriptedPlanner(blueprint),
        context({ lookup: status }, { lookup }),
      );

      expect(proposal).toMatchObject({ kind: 'act', operationId: 'customer' });
    },
  );

  it('resolves a missing $ref to undefined rather than guessing', async () => {
    const proposal = await propose(
      new ScriptedPlanner(blueprint),
      context({ lookup: 'confirmed' }, { lookup: { status: 'paid' } }),
    );

    expect(proposal.kind === 'act' && proposal.args).toEqual({ customer_id: undefined });
  });

  it('skips an operation whose when does not hold', async () => {
    const scope = { lookup: { ...lookup, status: 'refunded' }, customer };

    const proposal = await propose(
      new ScriptedPlanner(blueprint),
      context({ lookup: 'confirmed', customer: 'confirmed' }, scope),
    );

    expect(proposal).toMatchObject({ kind: 'skip', operationId: 'refund' });
  });

  it('finishes when every operation is done', async () => {
    const proposal = await propose(
      new ScriptedPlanner(blueprint),
      context(
        { lookup: 'confirmed', customer: 'confirmed', refund: 'skipped' },
        { lookup, customer },
      ),
    );

    expect(proposal).toEqual({ kind: 'finish', summary: 'all 3 operations done' });
  });

  it('replans after a failed precondition, refreshing what the operation depends on', async () => {
    const ctx = context(
      { lookup: 'confirmed', customer: 'confirmed' },
      { lookup, customer },
      {
        lastFailure: {
          operationId: 'refund',
          class: 'precondition_failed',
          message: 'order no longer paid',
        },
      },
    );

    const proposal = await propose(new ScriptedPlanner(blueprint), ctx);

    expect(proposal).toMatchObject({
      kind: 'replan',
      reason: expect.stringContaining('refund') as string,
    });
    expect(proposal.kind === 'replan' && [...proposal.refresh].sort()).toEqual([
      'customer',
      'lookup',
    ]);
    expect(proposal.kind === 'replan' && proposal.reason).toContain('order no longer paid');
  });

  it('replans with nothing to refresh for an unknown operation', async () => {
    const ctx = context(
      {},
      {},
      { lastFailure: { operationId: 'ghost', class: 'precondition_failed', message: 'x' } },
    );

    expect(await propose(new ScriptedPlanner(blueprint), ctx)).toMatchObject({
      kind: 'replan',
      refresh: [],
    });
  });

  it('carries on after other failures', async () => {
    const ctx = context(
      {},
      {},
      { lastFailure: { operationId: 'lookup', class: 'transient', message: 'blip' } },
    );

    expect(await propose(new ScriptedPlanner(blueprint), ctx)).toMatchObject({
      kind: 'act',
      operationId: 'lookup',
    });
  });

  it('scans a new operations list from the start, so an operation undone since is proposed again', async () => {
    const planner = new ScriptedPlanner(blueprint);
    await propose(
      planner,
      context({ lookup: 'confirmed', customer: 'confirmed' }, { lookup, customer }),
    );

    const proposal = await propose(
      planner,
      context({ lookup: 'failed', customer: 'confirmed' }, { lookup, customer }),
    );

    expect(proposal).toMatchObject({ kind: 'act', operationId: 'lookup' });
  });

  it('picks up a scan of the same list where it stopped, reading no earlier entry again', async () => {
    const planner = new ScriptedPlanner(blueprint);
    const ctx = context({ lookup: 'confirmed' }, { lookup, customer });
    const operations = [...ctx.operations];
    let lookupReads = 0;
    const done = operations[0]!;
    operations[0] = {
      ...done,
      get status() {
        lookupReads++;
        return done.status;
      },
    };
    const shared = { ...ctx, operations };

    const first = await propose(planner, shared);
    operations[1] = { ...operations[1]!, status: 'confirmed' };
    const second = await propose(planner, shared);

    expect(first).toMatchObject({ kind: 'act', operationId: 'customer' });
    expect(second).toMatchObject({ kind: 'act', operationId: 'refund' });
    expect(lookupReads).toBe(1);
  });

  it('is deterministic', async () => {
    const planner = new ScriptedPlanner(blueprint);
    const ctx = context({ lookup: 'confirmed' }, { lookup });

    expect(await planner.propose(ctx)).toEqual(await planner.propose(ctx));
  });
});

describe('dependenciesOf', () => {
  it('lists the operations an op reads through $ref, once each, never input', () => {
    expect(dependenciesOf(blueprint.operations[2]!).sort()).toEqual(['customer', 'lookup']);
    expect(dependenciesOf(blueprint.operations[0]!)).toEqual([]);
  });

  it('includes $refs inside when', () => {
    const bp = parseBlueprint({
      id: 'x',
      version: '1',
      operations: [
        {
          id: 'w',
          tool: 't',
          kind: 'write',
          when: { path: 'input.limit', op: 'gt', value: { $ref: 'quote.amount' } },
        },
      ],
    });

    expect(dependenciesOf(bp.operations[0]!)).toEqual(['quote']);
  });

  it('includes the paths a when reads, so a replan refreshes them', () => {
    const bp = parseBlueprint({
      id: 'x',
      version: '1',
      operations: [
        {
          id: 'w',
          tool: 't',
          kind: 'write',
          when: { path: 'lookup.status', op: 'eq', value: 'paid' },
        },
      ],
    });

    expect(dependenciesOf(bp.operations[0]!)).toEqual(['lookup']);
  });
});
