import { describe, expect, it } from 'vitest';
import { parseBlueprint, type BlueprintInput } from '../../runtime/blueprint.js';
import { InvalidInputError } from '../../runtime/errors.js';

const base = (): BlueprintInput => ({
  id: 'refunds',
  version: '1',
  operations: [
    {
      id: 'lookup',
      tool: 'get_order',
      kind: 'read',
      args: { order_id: { $ref: 'input.order_id' } },
    },
    {
      id: 'refund',
      tool: 'issue_refund',
      kind: 'write',
      args: { order_id: { $ref: 'input.order_id' }, amount_cents: { $ref: 'lookup.total_cents' } },
      when: { path: 'lookup.status', op: 'eq', value: 'paid' },
      idempotent: true,
    },
  ],
});

const failure = (input: unknown, source = 'blueprints/refunds.json'): InvalidInputError => {
  try {
    parseBlueprint(input, source);
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error('parseBlueprint accepted a malformed blueprint');
};

describe('parseBlueprint', () => {
  it('accepts a valid blueprint and fills defaults', () => {
    const bp = parseBlueprint(base());

    expect(bp.completion).toEqual([]);
    expect(bp.operations[0]).toMatchObject({
      description: '',
      preconditions: [],
      postconditions: [],
      idempotent: false,
    });
    expect(bp.operations[1]?.idempotent).toBe(true);
    expect(bp.operations[0]?.when).toBeUndefined();
  });

  it('rejects a duplicate operation id, naming operations[1].id', () => {
    const input = base();
    input.operations[1] = { ...input.operations[1]!, id: 'lookup' };

    const error = failure(input);

    expect(error.data.source).toBe('blueprints/refunds.json');
    expect(error.data.issues).toEqual([
      expect.stringMatching(/^operations\[1\]\.id: .*duplicate operation id "lookup"/),
    ]);
  });

  it('names only the later copies of a repeated id', () => {
    const input = base();
    const op = input.operations[0]!;
    input.operations = [op, { ...op }, { ...op, id: 'other' }, { ...op }];

    const error = failure(input);

    expect(error.data.issues.map((i) => i.split(':')[0])).toEqual([
      'operations[1].id',
      'operations[3].id',
    ]);
  });

  it.each(['Lookup', '1st', 'look_up', '-a', '', 'a b'])('rejects operation id %j', (id) => {
    const input = base();
    input.operations[0] = { ...input.operations[0]!, id };

    const error = failure(input);

    expect(error.message).toContain('operations[0].id: ');
  });

  it.each(['a', 'lookup', 'step-2', 'a1-b2'])('accepts operation id %j', (id) => {
    const input = base();
    input.operations[0] = { ...input.operations[0]!, id };

    expect(parseBlueprint(input).operations[0]?.id).toBe(id);
  });

  it('rejects an empty operation list', () => {
    expect(failure({ ...base(), operations: [] }).message).toContain('operations: ');
  });

  it('rejects an unknown operation kind and an unknown key, naming where', () => {
    const input = base() as unknown as { operations: Record<string, unknown>[] };
    input.operations[0]!.kind = 'delete';
    input.operations[1]!.retries = 3;

    const error = failure(input);

    expect(error.message).toContain('operations[0].kind: ');
    expect(
      error.data.issues.some((i) => i.startsWith('operations[1]: ') && i.includes('retries')),
    ).toBe(true);
  });

  it('rejects a malformed $ref argument', () => {
    const input = base() as unknown as { operations: { args: Record<string, unknown> }[] };
    input.operations[0]!.args.order_id = { $ref: '' };

    expect(failure(input).message).toContain('operations[0].args.order_id');
  });

  it('uses "blueprint" as the default source', () => {
    expect(() => parseBlueprint({})).toThrow(/^Invalid blueprint: /);
  });
});
