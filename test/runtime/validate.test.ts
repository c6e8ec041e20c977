import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../runtime/errors.js';
import {
  formatIssues,
  formatPath,
  freezeParsed,
  isFrozenParsed,
  parseInput,
} from '../../runtime/validate.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { contentHash, contractSchema } from '../../runtime/contract.js';
import { blueprintSchema } from '../../runtime/blueprint.js';

describe('formatPath', () => {
  it.each<[PropertyKey[], string]>([
    [[], '(root)'],
    [['budgets'], 'budgets'],
    [['budgets', 'toolCalls'], 'budgets.toolCalls'],
    [['faults', 1, 'trigger', 'call'], 'faults[1].trigger.call'],
    [[0, 'id'], '[0].id'],
    [['a', 0, 1], 'a[0][1]'],
  ])('formats %j as %s', (input, expected) => {
    expect(formatPath(input)).toBe(expected);
  });
});

describe('parseInput', () => {
  const schema = z.strictObject({
    faults: z.array(z.strictObject({ call: z.number().int().min(1) })),
  });

  it('returns the parsed value', () => {
    expect(parseInput(schema, { faults: [{ call: 1 }] }, 'x')).toEqual({ faults: [{ call: 1 }] });
  });

  it('throws InvalidInputError naming the source and each bad field', () => {
    let caught: unknown;
    try {
      parseInput(schema, { faults: [{ call: 1 }, { call: 0 }] }, 'scenario refunds/lost-ack.ts');
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(InvalidInputError);
    const error = caught as InvalidInputError;
    expect(error.code).toBe('invalid-input');
    expect(error.retryable).toBe(false);
    expect(error.data.source).toBe('scenario refunds/lost-ack.ts');
    expect(error.data.issues).toEqual([expect.stringMatching(/^faults\[1\]\.call: /)]);
    expect(error.message).toBe(
      `Invalid scenario refunds/lost-ack.ts: ${error.data.issues.join('; ')}`,
    );
  });

  it('formats one line per issue', () => {
    const result = schema.safeParse({ faults: [{ call: 0 }, { call: 'x' }] });
    if (result.success) throw new Error('expected failure');

    expect(formatIssues(result.error).map((l) => l.split(':')[0])).toEqual([
      'faults[0].call',
      'faults[1].call',
    ]);
  });
});

describe('freezeParsed', () => {
  const schema = z.object({ n: z.number(), inner: z.object({ tags: z.array(z.string()) }) });

  it('freezes a parsed value all the way down, and parseInput hands it back unparsed', () => {
    const value = freezeParsed(schema, parseInput(schema, { n: 1, inner: { tags: ['a'] } }, 's'));

    expect(Object.isFrozen(value.inner.tags)).toBe(true);
    expect(() => {
      value.inner.tags.push('b');
    }).toThrow(TypeError);
    expect(parseInput(schema, value, 's')).toBe(value);
  });

  it('is known to its own schema only; a copy, even unchanged, is parsed afresh', () => {
    const value = freezeParsed(schema, parseInput(schema, { n: 1, inner: { tags: [] } }, 's'));
    const other = z.object({ n: z.string() });

    expect(() => parseInput(other, value, 'other')).toThrow(InvalidInputError);
    const copy = { ...value, n: 2 };
    expect(parseInput(schema, copy, 's')).not.toBe(copy);
    expect(parseInput(schema, copy, 's')).toEqual(copy);
  });

  it('holds every built-in scenario’s contract and blueprint, which the runtime takes as they are', () => {
    expect(Object.isFrozen(partialRefund.contract.budgets)).toBe(true);
    expect(parseInput(contractSchema, partialRefund.contract, 'c')).toBe(partialRefund.contract);
    expect(parseInput(blueprintSchema, partialRefund.blueprint, 'b')).toBe(partialRefund.blueprint);
  });

  it('is hashed once, to the hash of an equal value that is not frozen', () => {
    const frozen = partialRefund.blueprint;
    const copy = structuredClone(frozen);

    expect(isFrozenParsed(frozen)).toBe(true);
    expect(isFrozenParsed(copy)).toBe(false);
    expect(contentHash(frozen)).toBe(contentHash(copy));
    expect(contentHash(frozen)).toBe(contentHash(frozen));
    expect(contentHash(frozen)).not.toBe(contentHash({ ...copy, version: 'other' }));
  });
});
