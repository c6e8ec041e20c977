import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  contentHash,
  parseContract,
  type ContractInput,
} from '../../runtime/contract.js';
import { FaultlineError, InvalidInputError } from '../../runtime/errors.js';

const base = (): ContractInput => ({
  version: '1',
  objective: 'refund order ord_1',
  decisionBoundary: 'execute',
  authority: {
    tools: {
      get_order: { risk: 'read' },
      issue_refund: { risk: 'high', resources: { order_id: ['ord_1'] }, approval: 'always' },
    },
  },
  autonomy: 'bounded',
  budgets: { toolCalls: 10, retries: 3, externalWrites: 1, virtualTimeMs: 60_000 },
});

/** Runs `parseContract` on a broken copy of the base and returns what it threw. */
const failure = (
  mutate: (c: Record<string, unknown>) => void,
  source = 'contracts/refund.json',
): InvalidInputError => {
  const input = structuredClone(base()) as unknown as Record<string, unknown>;
  mutate(input);
  try {
    parseContract(input, source);
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error('parseContract accepted a malformed contract');
};

describe('parseContract', () => {
  it('accepts the base contract and fills defaults', () => {
    const contract = parseContract(base());

    expect(contract.invariants).toEqual([]);
    expect(contract.evidenceRequired).toEqual([]);
    expect(contract.stopConditions).toEqual([]);
    expect(contract.budgets.costUsd).toBe(0);
    expect(contract.recoveryPromise).toEqual({
      resumeFromCheckpoint: true,
      reconcileAmbiguous: true,
      compensateOnCancel: false,
    });
    expect(contract.authority.tools.get_order).toEqual({
      risk: 'read',
      resources: {},
      approval: 'never',
    });
    expect(contract.authority.tools.issue_refund?.approval).toBe('always');
  });

  it('accepts a predicate approval rule', () => {
    const input = base();
    input.authority.tools.issue_refund = {
      risk: 'high',
      approval: { when: { path: 'args.amount_cents', op: 'gt', value: 1000 } },
    };

    const contract = parseContract(input);

    expect(contract.authority.tools.issue_refund?.approval).toEqual({
      when: { path: 'args.amount_cents', op: 'gt', value: 1000 },
    });
  });

  it.each<[string, (c: Record<string, unknown>) => void, string]>([
    ['a missing objective', (c) => delete c.objective, 'objective'],
    ['an empty objective', (c) => (c.objective = ''), 'objective'],
    ['an unknown autonomy mode', (c) => (c.autonomy = 'yolo'), 'autonomy'],
    [
      'a negative tool-call budget',
      (c) => ((c.budgets as Record<string, unknown>).toolCalls = -1),
      'budgets.toolCalls',
    ],
    [
      'a fractional tool-call budget',
      (c) => ((c.budgets as Record<string, unknown>).toolCalls = 1.5),
      'budgets.toolCalls',
    ],
    [
      'a negative retry budget',
      (c) => ((c.budgets as Record<string, unknown>).retries = -1),
      'budgets.retries',
    ],
    [
      'a zero virtual-time budget',
      (c) => ((c.budgets as Record<string, unknown>).virtualTimeMs = 0),
      'budgets.virtualTimeMs',
    ],
    [
      'a negative cost budget',
      (c) => ((c.budgets as Record<string, unknown>).costUsd = -0.01),
      'budgets.costUsd',
    ],
    ['an empty authority', (c) => (c.authority = { tools: {} }), 'authority.tools'],
    [
      'an unknown risk tier',
      (c) => (c.authority = { tools: { t: { risk: 'extreme' } } }),
      'authority.tools.t.risk',
    ],
    ['a bad decision boundary', (c) => (c.decisionBoundary = 'maybe'), 'decisionBoundary'],
    [
      'a malformed invariant predicate',
      (c) => (c.invariants = [{ id: 'i', description: 'd', holds: { path: 'x', op: 'like' } }]),
      'invariants[0].holds.op',
    ],
  ])('rejects %s, naming the source and %s', (_what, mutate, field) => {
    const error = failure(mutate);

    expect(error).toBeInstanceOf(FaultlineError);
    expect(error.code).toBe('invalid-input');
    expect(error.data.source).toBe('contracts/refund.json');
    expect(error.message).toMatch(/^Invalid contracts\/refund\.json: /);
    expect(error.data.issues.some((issue) => issue.startsWith(`${field}: `))).toBe(true);
    expect(error.message).toContain(`${field}: `);
  });

  it('rejects an unknown extra key, naming it', () => {
    const error = failure((c) => (c.owner = 'bob'));

    expect(error.data.issues).toHaveLength(1);
    expect(error.message).toContain('(root)');
    expect(error.message).toContain('owner');
  });

  it('rejects an unknown key inside a nested object, naming where', () => {
    const error = failure((c) => ((c.budgets as Record<string, unknown>).tokens = 5));

    expect(error.data.issues).toEqual([expect.stringMatching(/^budgets: .*tokens/)]);
  });

  it('reports every bad field at once', () => {
    const error = failure((c) => {
      delete c.objective;
      c.autonomy = 'yolo';
    });

    expect(error.data.issues).toHaveLength(2);
    expect(error.message).toContain('objective: ');
    expect(error.message).toContain('autonomy: ');
  });

  it('uses "contract" as the default source', () => {
    expect(() => parseContract({})).toThrow(/^Invalid contract: /);
  });

  it('rejects a non-object at the root', () => {
    expect(() => parseContract('contract', 'x.json')).toThrow(/^Invalid x\.json: \(root\): /);
  });
});

describe('contentHash', () => {
  it('is the same whatever the key order, at every depth', () => {
    const a = { b: 1, a: { y: [1, { q: 1, p: 2 }], x: 'z' } };
    const b = { a: { x: 'z', y: [1, { p: 2, q: 1 }] }, b: 1 };

    expect(contentHash(a)).toBe(contentHash(b));
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(b)).toBe('{"a":{"x":"z","y":[1,{"p":2,"q":1}]},"b":1}');
  });

  it('is stable across calls and 16 hex digits long', () => {
    const contract = parseContract(base());

    expect(contentHash(contract)).toBe(contentHash(parseContract(base())));
    expect(contentHash(contract)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes when content changes', () => {
    const contract = base();
    const other = base();
    other.budgets.toolCalls = 11;

    expect(contentHash(other)).not.toBe(contentHash(contract));
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: '1' }));
    expect(contentHash([1, 2])).not.toBe(contentHash([2, 1]));
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ b: 1 }));
  });
});
