import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../runtime/errors.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import { defineScenario, type ScenarioInput } from '../../scenarios/scenario.js';

const REMOVE = Symbol('remove');

/**
 * A copy of a valid scenario with fields changed: keys are dotted paths, values what to put
 * there (`REMOVE` deletes the field). Loosely typed on purpose, so tests can break it.
 */
function variant(changes: Record<string, unknown>): ScenarioInput {
  const copy = structuredClone(fullRefund) as unknown as Record<string, unknown>;
  for (const [path, value] of Object.entries(changes)) {
    const keys = path.split('.');
    const last = keys.pop()!;
    const parent = keys.reduce((obj, key) => obj[key] as Record<string, unknown>, copy);
    if (value === REMOVE) Reflect.deleteProperty(parent, last);
    else parent[last] = value;
  }
  return copy as unknown as ScenarioInput;
}

/** Calls defineScenario and returns the InvalidInputError it must throw. */
function refusal(input: ScenarioInput, source?: string): InvalidInputError {
  try {
    defineScenario(input, source);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  expect.fail('defineScenario accepted invalid input');
}

describe('defineScenario', () => {
  it.each(BUILT_IN_SCENARIOS.map((s) => [s.id, s] as const))(
    'accepts the built-in scenario %s unchanged',
    (_id, scenario) => {
      expect(defineScenario(scenario)).toEqual(scenario);
    },
  );

  it('gives every built-in scenario a distinct id', () => {
    const ids = BUILT_IN_SCENARIOS.map((s) => s.id);

    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(8);
  });

  it('fills defaults: grant at once by ops-lead, no setup, no tags', () => {
    const scenario = defineScenario(variant({ operator: REMOVE, tags: REMOVE }));

    expect(scenario.operator.approvals).toEqual({
      decision: 'grant',
      afterMs: 0,
      approver: 'ops-lead',
      reason: 'not approved',
    });
    expect(scenario.world.setup).toEqual([]);
    expect(scenario.tags).toEqual([]);
  });

  it('refuses an id that is not world/name in lowercase, naming the id and the field', () => {
    const error = refusal(variant({ id: 'Refunds/Full_Refund' }));

    expect(error.code).toBe('invalid-input');
    expect(error.message).toContain('Refunds/Full_Refund');
    expect(error.message).toMatch(/\bid: world\/name in lowercase/);
    expect(error.data.source).toBe('scenario Refunds/Full_Refund');
  });

  it('refuses an id without a world part', () => {
    const error = refusal(variant({ id: 'full-refund' }));

    expect(error.data.issues).toEqual([expect.stringMatching(/^id: /)]);
  });

  it('names the source file, and leaves the id out of the source when the id is not a string', () => {
    const error = refusal(variant({ id: 42 }), 'scenarios/library/refunds/broken.ts');

    expect(error.message).toMatch(/^Invalid scenarios\/library\/refunds\/broken\.ts: id: /);
  });

  it('refuses a missing title, naming the scenario and "title"', () => {
    const error = refusal(variant({ title: REMOVE }));

    expect(error.message).toContain('refunds/full-refund');
    expect(error.data.issues).toEqual([expect.stringMatching(/^title: /)]);
  });

  it('refuses an empty title', () => {
    const error = refusal(variant({ title: '' }));

    expect(error.data.issues).toEqual([expect.stringMatching(/^title: /)]);
  });

  it('refuses a tier other than low, medium or high, listing the allowed ones', () => {
    const error = refusal(variant({ tier: 'critical' }));

    expect(error.message).toContain('refunds/full-refund');
    expect(error.data.issues).toHaveLength(1);
    expect(error.data.issues[0]).toMatch(/^tier: /);
    expect(error.data.issues[0]).toContain('"low"|"medium"|"high"');
  });

  it('refuses an unknown expected.state', () => {
    const error = refusal(variant({ 'expected.state': 'done' }));

    expect(error.message).toContain('refunds/full-refund');
    expect(error.data.issues).toEqual([expect.stringMatching(/^expected\.state: /)]);
  });

  it('refuses an unknown expected.stopReason', () => {
    const error = refusal(variant({ 'expected.stopReason': 'bored' }));

    expect(error.data.issues).toEqual([expect.stringMatching(/^expected\.stopReason: /)]);
  });

  it.each([
    ['an unknown comparison', { path: 'world.orders', op: 'equals', value: 1 }],
    ['a comparison without a path', { op: 'eq', value: 1 }],
    [
      'a nested some without where',
      { all: [{ path: 'effects.length', op: 'eq', value: 2 }, { some: { path: 'world.orders' } }] },
    ],
    ['an unknown key', { path: 'effects.length', op: 'eq', value: 2, extra: true }],
  ])('refuses a malformed expected.world predicate: %s', (_what, world) => {
    const error = refusal(variant({ 'expected.world': world }));

    expect(error.message).toContain('refunds/full-refund');
    expect(error.data.issues).toHaveLength(1);
    expect(error.data.issues[0]).toMatch(/^expected\.world\b/);
  });

  it('refuses a contract field error with its full path', () => {
    const error = refusal(variant({ 'contract.budgets.toolCalls': 0 }));

    expect(error.message).toContain('refunds/full-refund');
    expect(error.data.issues).toEqual([expect.stringMatching(/^contract\.budgets\.toolCalls: /)]);
  });

  it('refuses a contract that allows no tools', () => {
    const error = refusal(variant({ 'contract.authority.tools': {} }));

    expect(error.data.issues).toEqual([
      expect.stringMatching(/^contract\.authority\.tools: at least one tool must be allowed/),
    ]);
  });

  it('refuses a negative operator delay, and a decision other than grant or deny', () => {
    const delay = refusal(variant({ 'operator.approvals.afterMs': -1 }));
    const decision = refusal(variant({ 'operator.approvals.decision': 'maybe' }));

    expect(delay.data.issues).toEqual([expect.stringMatching(/^operator\.approvals\.afterMs: /)]);
    expect(decision.data.issues).toEqual([
      expect.stringMatching(/^operator\.approvals\.decision: /),
    ]);
  });

  it('refuses a setup call without a tool, naming its index', () => {
    const error = refusal(variant({ 'world.setup': [{ tool: '', args: {} }] }));

    expect(error.data.issues).toEqual([expect.stringMatching(/^world\.setup\[0\]\.tool: /)]);
  });

  it('refuses a negative or fractional world seed', () => {
    expect(refusal(variant({ 'world.seed': -1 })).data.issues).toEqual([
      expect.stringMatching(/^world\.seed: /),
    ]);
    expect(refusal(variant({ 'world.seed': 1.5 })).data.issues).toEqual([
      expect.stringMatching(/^world\.seed: /),
    ]);
  });

  it('refuses unknown top-level keys (a typo never passes silently)', () => {
    const error = refusal(variant({ expectd: {} }));

    expect(error.message).toContain('expectd');
  });

  it('reports every problem at once, one issue each', () => {
    const error = refusal(variant({ tier: 'urgent', title: '', 'contract.budgets.retries': -1 }));

    expect(error.data.issues.map((i) => i.split(':')[0]).sort()).toEqual([
      'contract.budgets.retries',
      'tier',
      'title',
    ]);
  });
});

describe('defineScenario: where a predicate is wrong', () => {
  it('names the innermost field and what it expected, not just "Invalid input"', () => {
    const badOp = refusal(
      variant({ 'expected.world': { all: [{ path: 'world.orders', op: 'equals', value: 1 }] } }),
    );
    expect(badOp.message).toContain('expected.world.all[0].op: Invalid option');

    const missingWhere = refusal(
      variant({ 'expected.world': { all: [{ some: { path: 'world.orders' } }] } }),
    );
    expect(missingWhere.message).toContain('expected.world.all[0].some.where');
  });
});
